"""`python -m mncore.generated`: rewrite every generated file (JSON Schemas, rulings documents)."""

from __future__ import annotations

import sys

from mncore import schemas
from mncore.core.kernel_rulings import KERNEL_BOOK
from mncore.rulesets.registry import builtin


def main() -> None:
    written = schemas.write()
    print(f"wrote {len(written)} schemas under {schemas.SCHEMA_DIR}", file=sys.stderr)
    for book in [KERNEL_BOOK, *(r.rulebook for r in builtin())]:
        if book.doc is not None:
            book.doc.write_text(book.render_doc())
            print(f"wrote {book.doc} ({len(book.rulings)} rulings)", file=sys.stderr)


if __name__ == "__main__":
    main()
