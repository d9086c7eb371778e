"""Peak RSS and CPU of one mn command as a user runs it: the installed mn's entry point, measured as it exits.

python bench/command_peak.py --db PATH verify GAME   (prints the peak in KiB, the CPU seconds, the workers' peak in KiB)

Beside it, `imports_peak` gives the peak RSS of a process that imported what mn verify imports and did nothing.
"""

from __future__ import annotations

import subprocess
import sys
from typing import NamedTuple

# What the mn script runs (pyproject: mn = "mncli.start:main"), with the figures written to stderr as the
# process exits: its VmHWM, its CPU and its reaped workers' (os.times), and its workers' largest ru_maxrss.
_COMMAND = """
import atexit, os, resource, sys
def _figures():
    hwm = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))
    t = os.times()
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sys.stderr.write(f"\\nFIGURES {hwm} {t.user + t.system + t.children_user + t.children_system} {kids}\\n")
atexit.register(_figures)
from mncli.start import main
sys.argv[0] = "mn"
sys.exit(main())
"""

# mn verify's modules and the Empires ruleset, imported as the command imports them (with the signatures'
# modules for a game by mail: sys.argv[1] == "keyed"), then nothing.
_IMPORTS = """
import sys
import mncli.cli, mncore.games.lifecycle, mncore.audits.verify_stream, mncore.audits.snapshots, multiprocessing.pool
from mncore.rulesets.empires import seam
if sys.argv[1:] == ["keyed"]:
    import cryptography.exceptions, cryptography.hazmat.primitives.asymmetric.ed25519, mncore.pbem.signing
hwm = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))
sys.stderr.write(f"\\nFIGURES {hwm} 0 0\\n")
"""


class Command(NamedTuple):
    """One run's figures: the command's peak RSS (MiB), its CPU with its workers' (s), its workers' largest peak."""

    peak: float
    cpu: float
    workers_peak: float


def command_peak(args: list[str]) -> Command:
    """The figures of `mn ARGS` (which must exit 0), its output discarded."""
    return _run([sys.executable, "-c", _COMMAND, *args])


def imports_peak(keyed: bool = False) -> float:
    """The peak RSS in MiB of an interpreter that imported mn verify's modules and the ruleset (and, if
    keyed, what checking a signature imports: cryptography's Ed25519), and stopped."""
    return _run([sys.executable, "-c", _IMPORTS, *(["keyed"] if keyed else [])]).peak


def _run(argv: list[str]) -> Command:
    done = subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    hwm, cpu, kids = done.stderr.rsplit("FIGURES ", 1)[1].split()[:3]
    return Command(int(hwm) / 1024, float(cpu), int(kids) / 1024)


if __name__ == "__main__":
    run = command_peak(sys.argv[1:])
    print(f"{run.peak * 1024:.0f} {run.cpu:.3f} {run.workers_peak * 1024:.0f}")
