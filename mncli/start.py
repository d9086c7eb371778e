"""The `mn` script: the collector paused while the command and its modules load, then the command."""


def main(**options: object) -> object:
    """Run mn (click's options, e.g. prog_name); the collector is on again once the command is found
    (cli.LazyGroup.resolve_command). Nothing is imported before it is paused, not even typing. At the
    end, what the process made is frozen: the exit's last collections scan none of it."""
    from mncore.core.collector import pause_start, skip_last_scan

    pause_start()
    from mncli.cli import main as mn

    try:
        return mn(**options)
    finally:
        skip_last_scan()
