# The C benchmark's tests run from its own Makefile (`make -C runner/iibench test`) with their
# own pytest.ini and markers; `pytest runner` collects the Django app's tests only.
collect_ignore = ["iibench"]
