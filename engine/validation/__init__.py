"""The validation layer: the rules every input must meet, kept as data, and the checks that read
them (docs/boundaries.md).

- :mod:`~meshsim.engine.validation.rules`: a :class:`~meshsim.engine.validation.rules.Rule` is one
  key of a file or one command-line option (type, default, range, the registry its names come
  from); a :class:`~meshsim.engine.validation.rules.Section` is the rules of one table. Every TOML
  table is read through its section (:class:`meshsim.engine.core.toml_table.Table`), so a value is
  checked by the same code whichever file it comes from.
- :mod:`~meshsim.engine.validation.formats`: every file format and option set, listed for the docs
  (:func:`~meshsim.engine.validation.formats.formats`).
- :mod:`~meshsim.engine.validation.options`: the options of ``meshsim run`` and the other commands.
- :mod:`~meshsim.engine.validation.swf_columns`: the range of every SWF field, checked per column.
- :mod:`~meshsim.engine.validation.limits`: resource limits, checked before anything is allocated.
- :mod:`~meshsim.engine.validation.text`: reading an input file under the input limit (gzip
  streams decompressed piece by piece), decoding errors named with their line.

The checks of scenario actions against the machine and workload they act on need the kernel's
actions, so they sit with the scenario files in :mod:`meshsim.engine.tools.scenario_checks`.
"""
