"""``benchsmith view``: a static site a reader browses from a run's summary down to one candidate's failing assertion.

:mod:`inputs` reads and matches what a run wrote (results, their logs, candidates, datasets, rankings, agents'
transcripts) and says what is missing; :mod:`shape` turns it into the compact rows and lazily loaded details the page
reads; :mod:`site` writes the folder (``index.html``, the package's own script and style, ``data/*.js``, plots). The
site needs no network and no server: its data are scripts that assign to a global, which browsers load from
``file://`` where they refuse ``fetch()``.
"""
