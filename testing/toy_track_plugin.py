"""`pytest -p testing.toy_track_plugin`: the whole suite (or a part of it) with the toy track of
testing/toy_track/ registered, as the one line a newcomer adds to TRACKS would."""


def pytest_configure(config):
    from submissions import tracks
    from testing.toy_track import TOY

    tracks.TRACKS[TOY.workload] = TOY
    tracks.ALL_FIELDS.update({field.name: field for field in TOY.fields})
