"""BFCL's rules: what BFCL's categories, data, prompts and AST checker are, apart from running it.

The room below scoring and the file formats. Generic scoring (every case's ``bfcl_pass``,
``te.bfcl_check``) and the BFCL suite format (``te.load_bfcl`` / ``te.save_bfcl``) use these
modules; the BFCL benchmark (:mod:`tooleval_nb.bfcl`: ``te.run_bfcl``, its loop, BFCL's
environment classes, result files and leaderboard) builds on them. This package imports
neither the runner nor the models nor the benchmark: only :mod:`tooleval_nb.errors`,
:mod:`tooleval_nb.toolcall`, :mod:`tooleval_nb.suite` and :mod:`tooleval_nb.extras` (the install
command named when BFCL's data is missing).

- :mod:`.categories`: BFCL V4's categories and groups, and bfcl-eval's rules on names;
- :mod:`.data`: where BFCL's data is, and one category's entries. **The one module here that
  reads files** (bfcl-eval's data files, and the files ``te.bfcl_check`` is given through
  :mod:`.file_check`): the I/O of BFCL's rules, kept at this edge;
- :mod:`.prompt`: what BFCL shows a model (function docs, native tools, system prompts);
- :mod:`.gorilla`: BFCL's gorilla schema dialect, to and from JSON Schema;
- :mod:`.decode`: a BFCL model result decoded into the checker's calls;
- :mod:`.convert`: BFCL's Java and JavaScript argument converters;
- :mod:`.adapt`: our tools, expected calls and calls in the shapes the checker reads;
- :mod:`.checker`: BFCL's AST checker (verdicts identical to BFCL's);
- :mod:`.file_check`: ``te.bfcl_check``, the checker on whole result files.

No facade: import a name from its module (``from tooleval_nb.bfcl_rules.checker import
bfcl_verdict``), so that scoring one case loads the checker and not the data reader. The names
users reach are re-exported where users look: ``te.bfcl_check`` and ``tooleval_nb.scoring.bfcl_verdict``
(scoring), ``tooleval_nb.bfcl.CATEGORIES``, ``BfclData``... (the benchmark).
"""
