"""Command-line subcommands that live in their own modules.

Each module here defines::

    def add_parser(subparsers, common) -> None

which adds its subparser (``common.add_command(subparsers, name, help)`` gives one with ``--json``)
and sets ``handler=<function(args) -> int exit code>`` with ``set_defaults``.  ``common`` is
:mod:`coflowopt.cli`, whose helpers (``add_instance_options``, ``load_instance``, ``emit``,
``parse_params``, ``progress``, ``UsageError``, exit codes) the modules reuse.  Modules are
discovered automatically, so a new command never needs an edit of ``cli.py``.

The contract every command keeps (checked for every subcommand by
``tests/test_cli_contract.py``, which fails if a command has no case there):

* ``--json`` prints one JSON document on standard output and nothing else;
* time flags use ``type=common.seconds`` (finite, >= 0; NaN, inf, negative are exit 2);
* ``KEY=VALUE`` flags use ``action=common.KeyValues`` and are checked with
  ``common.check_params`` (unknown keys, wrong types, missing required keys), registry names
  with ``common.lookup``, values a function refuses with ``common.blame``: every message names
  the flag as typed and the rule, on one line, exit 2;
* options that would be ignored together are an error, not ignored;
* exit 1 only for a finding (a rejected schedule, a proven infeasible problem); a solver
  failure propagates as ``SolverError`` (exit 4); a time limit is exit 0 with its status.
"""
