"""A log sent with a form that had other mistakes is kept on the server for the retry, so the
entrant does not choose the file again: the page carries a signed token naming it, valid for
KEEP_SECONDS and only for the user who sent it. Files older than that are removed whenever the
same user's next log is kept."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.core import signing
from django.core.files import File
from django.core.files.storage import default_storage
from django.utils import timezone

KEEP_SECONDS = 24 * 3600
SALT = "submissions.kept-log"


@dataclass(frozen=True)
class KeptLog:
    token: str
    name: str
    size: int
    file: File | None = None  # open, when read back for a retry


def _folder(owner) -> str:
    return f"kept/{owner.pk}"


def log_keep(*, uploaded: File, owner, name: str) -> KeptLog:
    """Store the uploaded log for the retry; `name` is its display name."""
    _remove_expired(owner)
    key = secrets.token_hex(16)
    uploaded.seek(0)
    stored = default_storage.save(f"{_folder(owner)}/{key}", uploaded)
    token = signing.dumps(
        {"user": owner.pk, "path": stored, "name": name, "size": uploaded.size}, salt=SALT
    )
    return KeptLog(token=token, name=name, size=uploaded.size)


def kept_log_open(*, token: str, owner) -> KeptLog | None:
    """The kept log a token names, open for reading; None when the token is forged, another
    user's, expired, or its file is gone."""
    try:
        data = signing.loads(token, salt=SALT, max_age=KEEP_SECONDS)
    except signing.BadSignature:
        return None
    if data.get("user") != owner.pk or not default_storage.exists(data["path"]):
        return None
    opened = File(default_storage.open(data["path"], "rb"), name=data["name"])
    return KeptLog(token=token, name=data["name"], size=data["size"], file=opened)


def kept_log_discard(*, kept: KeptLog) -> None:
    data = signing.loads(kept.token, salt=SALT)
    if kept.file is not None:
        kept.file.close()
    default_storage.delete(data["path"])


def _remove_expired(owner) -> None:
    folder = _folder(owner)
    if not default_storage.exists(folder):
        return
    oldest = timezone.now() - timedelta(seconds=KEEP_SECONDS)
    for name in default_storage.listdir(folder)[1]:
        path = f"{folder}/{name}"
        if default_storage.get_modified_time(path) < oldest:
            default_storage.delete(path)
