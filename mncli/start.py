"""The `mn` script: the collector paused while the command and its modules load, then the command."""


def main(**options: object) -> object:
    """Run mn (click's options, e.g. prog_name); the collector is on again once the command is found
    (cli.LazyGroup.resolve_command). Nothing is imported before it is paused, not even typing."""
    from mncore.core.collector import pause_start

    pause_start()
    from mncli.cli import main as mn

    return mn(**options)
