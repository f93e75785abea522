"""Streamed runs: the live side of the registry. A witness client streams a run's output here as
it happens (witness tokens, live entries, appended batches with the registry's receipt time);
when the run ends the entry is sealed into an ordinary Submission judged by the usual rules plus
the seal rules (the clock agrees, the machine is the declared one).

A wing: it may import every room of the registry, and plugs into it through
`submissions/wings.py` (registered in `live/apps.py`); no module outside `live/` imports it.
"""
