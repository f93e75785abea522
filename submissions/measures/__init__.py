"""Measures: the figures every page, export and rerun reads, computed one way. The figures of a run
(`figures`), its terminal rate (`terminal`), the cost of a row (`costs`), the stored series and
what a page plots (`series`), the board's order (`ranking`), how numbers are written for people
(`numbers`), the compare page's ratios (`comparison`) and figures no server can produce
(`plausibility`).

Pure: plain data in, plain data out (numpy and pyarrow, no Django). May import `logparse` and
each other; nothing else of the registry.
"""
