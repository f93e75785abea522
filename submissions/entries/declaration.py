"""What an entrant declares about a run, declared once: the fields in the groups the form shows
them in. The form, the API's serializers, the services that store and edit an entry, and the
re-check read this table; everything else on an entry is computed. A contest's track may ask
more (its own fields, submissions/tracks)."""

DECLARATION_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("You", ("entrant_name", "email", "publish")),
    (
        "Hardware",
        (
            "cpu_model",
            "sockets",
            "cores",
            "cpu_ghz",
            "memory_gb",
            "drives",
            "drive_kind",
            "raid_level",
            "direct_attached",
        ),
    ),
    (
        "Software",
        ("os", "server_family", "server_version", "storage_engine", "storage_engine_version"),
    ),
    ("Solution", ("solution_description", "server_config")),
)

DECLARED_FIELDS: tuple[str, ...] = tuple(name for _, names in DECLARATION_GROUPS for name in names)
