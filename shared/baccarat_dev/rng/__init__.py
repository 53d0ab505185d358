"""RNG and shuffle evidence for bacc-pf-v1: the statistics a test lab runs, on the
production derivation. ``python -m baccarat_dev.rng`` (``make rng-report``) writes
``docs/rng-report.md``; ``tests/unit/test_rng_evidence.py`` runs the fixed-seed subset.

Modules: :mod:`.source` (seeded inputs from ``baccarat.fairness``), :mod:`.sample` (one pass
over shoes), :mod:`.positions`, :mod:`.scaling`, :mod:`.serial`, :mod:`.outcomes`,
:mod:`.stream` with :mod:`.nist` (SP 800-22), :mod:`.stats` (shared statistics and the
multiple-testing rule), :mod:`.broken` (the controls), :mod:`.subset` (the fixed-seed checks),
:mod:`.report` (running it all), :mod:`.plots`, and :mod:`.render` with :mod:`.render_stream`
and :mod:`.markdown` (the page)."""
