"""Documents generated from the specs and the reports: one page per op (:mod:`~docgen.pages`), the docs site
(:mod:`~docgen.site`), its support matrix, the ``xla_client`` porting table (:mod:`~docgen.porting_table`) and
the site's screenshots (:mod:`~docgen.browser`)."""
