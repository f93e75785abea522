"""Downsampling a series for the plots: few points, the shape and the extremes kept."""

import numpy as np
import pytest

from submissions.measures.series import MAX_PLOT_POINTS, downsample, plot_preview
from testing.factories import rate_columns

TWO_MILLION = 2_000_000


def noisy_run(samples: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    rows = np.arange(1, samples + 1, dtype=np.int64) * 500
    rate = 99_000 / (1 + np.arange(samples) / 200_000) + rng.normal(0, 800, samples)
    return rows, rate


def test_it_sends_at_most_5000_points_per_series_for_2_million_samples():
    preview = plot_preview(rate_columns(TWO_MILLION, every=500))

    assert preview["count"] == TWO_MILLION
    for name in ("interval_rate", "cumulative_rate"):
        assert len(preview[name]["x"]) == len(preview[name]["y"])
        assert 4_000 < len(preview[name]["x"]) <= MAX_PLOT_POINTS


def test_it_keeps_the_minimum_and_maximum_of_the_series():
    rows, rate = noisy_run(TWO_MILLION)
    rate[1_234_567] = 4.0  # a stall of one interval, the thing a reader looks for
    rate[77] = 250_000.0

    x, y = downsample(rows, rate)

    assert min(y) == 4.0 and x[y.index(4.0)] == rows[1_234_567]
    assert max(y) == 250_000.0 and x[y.index(250_000.0)] == rows[77]


def test_it_keeps_the_extremes_of_pure_noise_too():
    for seed in range(5):
        rows, rate = noisy_run(300_000, seed)
        _, y = downsample(rows, rate)
        assert (min(y), max(y)) == (rate.min(), rate.max())


def test_it_keeps_the_first_and_last_samples_in_order():
    rows, rate = noisy_run(100_000)

    x, _ = downsample(rows, rate)

    assert x[0] == rows[0] and x[-1] == rows[-1]
    assert x == sorted(x)


def test_it_keeps_a_short_series_whole():
    rows, rate = noisy_run(1_000)

    assert downsample(rows, rate) == (rows.tolist(), rate.tolist())


def test_it_leaves_out_samples_that_cannot_be_plotted():
    rows = np.array([1, 2, 3, 4], dtype=np.int64)
    rate = np.array([10.0, np.nan, np.inf, 7.0])

    assert downsample(rows, rate) == ([1, 4], [10.0, 7.0])


def test_it_previews_the_delete_rate_when_the_run_deletes():
    preview = plot_preview(rate_columns(1_000, deletes=True))

    assert set(preview) == {
        "count",
        "interval_rate",
        "cumulative_rate",
        "interval_delete_rate",
        "seconds",
    }


def test_the_preview_carries_elapsed_seconds_against_rows():
    columns = rate_columns(TWO_MILLION, every=500)
    preview = plot_preview(columns)

    seconds = preview["seconds"]
    assert 4_000 < len(seconds["x"]) <= MAX_PLOT_POINTS
    assert seconds["x"][-1] == columns["rows"][-1]
    assert seconds["y"][-1] == columns["seconds"][-1]
    assert seconds["y"] == sorted(seconds["y"])


def test_packed_columns_come_back_exactly():
    import numpy as np

    from submissions.measures.series import pack_columns, unpack_columns

    columns = {
        "rows": np.arange(1, 100_001, dtype=np.int64) * 1_000,
        "seconds": np.cumsum(np.linspace(0.5, 3.0, 100_000)),
        "deleted": np.zeros(100_000, dtype=np.int64),
    }
    unpacked = unpack_columns(pack_columns(columns))
    assert set(unpacked) == set(columns)
    for name, column in columns.items():
        assert unpacked[name].dtype == column.dtype
        assert np.array_equal(unpacked[name], column)


def test_series_stored_deflated_before_zstd_come_back_exactly():
    import json
    import zlib

    from submissions.measures.series import (
        DEFLATED_MAGIC,
        PACK_CODEC,
        PACK_MAGIC,
        PIECE_VALUES,
        pack_columns,
        unpack_columns,
    )

    columns = {
        "rows": np.arange(1, 300_001, dtype=np.int64) * 500,
        "interval_rate": np.linspace(90_000.0, 4_000.0, 300_000),
    }
    packed = bytes(pack_columns(columns))
    # The same pieces as the format before zstd wrote them: deflated, under DEFLATED_MAGIC.
    at = len(PACK_MAGIC)
    size = int.from_bytes(packed[at : at + 4], "little")
    header = json.loads(packed[at + 4 : at + 4 + size])
    at += 4 + size
    filled = dict.fromkeys(columns, 0)
    pieces = []
    for piece in header["pieces"]:
        name, length = piece
        count = min(PIECE_VALUES, len(columns[name]) - filled[name])
        raw = PACK_CODEC.decompress(packed[at : at + length], decompressed_size=count * 8)
        pieces.append(zlib.compress(raw.to_pybytes(), 1))
        piece[1], filled[name], at = len(pieces[-1]), filled[name] + count, at + length
    encoded = json.dumps(header).encode()
    deflated = b"".join([DEFLATED_MAGIC, len(encoded).to_bytes(4, "little"), encoded, *pieces])

    unpacked = unpack_columns(deflated)
    for name, column in columns.items():
        assert unpacked[name].dtype == column.dtype
        assert np.array_equal(unpacked[name], column)


@pytest.mark.django_db
def test_the_migration_adds_seconds_to_previews_stored_without_them():
    from importlib import import_module

    from django.apps import apps

    from submissions.models import SampleSeries
    from testing.factories import SampleSeriesFactory

    columns = rate_columns(20_000)
    old = plot_preview(columns)
    del old["seconds"]
    stored = SampleSeriesFactory(count=20_000, columns_data=columns, preview=old)

    import_module("submissions.migrations.0015_preview_seconds").add_seconds_to_previews(apps, None)

    preview = SampleSeries.objects.get(pk=stored.pk).preview
    assert preview["seconds"] == plot_preview(columns)["seconds"]
    assert preview["interval_rate"] == old["interval_rate"]


@pytest.mark.postgresql
@pytest.mark.django_db
def test_postgresql_stores_the_packed_series_without_compressing_it_again():
    from django.db import connection

    from submissions.models import SampleSeries

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attstorage FROM pg_attribute WHERE attrelid = %s::regclass AND attname = %s",
            [SampleSeries._meta.db_table, "columns"],
        )
        assert cursor.fetchone() == ("e",)  # EXTERNAL: out of line, as it is


def test_a_rate_column_held_in_4_bytes_is_downsampled_to_the_same_points():
    # Exact rates are held as float32 while an upload is checked (logparse/columns.py); the
    # downsampler reads them as they are, and must pick what it picks from their float64 copy.
    rng = np.random.default_rng(4150)
    count = 300_000
    rows = np.cumsum(rng.integers(900, 1_100, count)).astype(np.int64)
    falling = 90_000 / (1 + np.arange(count) / 30_000)
    rates = np.round(falling * rng.uniform(0.7, 1.3, count)).astype(np.float32)
    assert downsample(rows, rates) == downsample(rows, rates.astype(np.float64))
