"""Command-line subcommands that live in their own modules.

Each module here defines::

    def add_parser(subparsers, common) -> None

which adds its subparser (``common.add_command(subparsers, name, help)`` gives one with ``--json``)
and sets ``handler=<function(args) -> int exit code>`` with ``set_defaults``.  ``common`` is
:mod:`coflowopt.cli`, whose helpers (``add_instance_options``, ``load_instance``, ``emit``,
``parse_params``, ``progress``, ``UsageError``, exit codes) the modules reuse.  Modules are
discovered automatically, so a new command never needs an edit of ``cli.py``.
"""
