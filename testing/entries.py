"""What the registry's tests send as an entrant: a full declaration and an uploaded log."""

from django.core.files.uploadedfile import SimpleUploadedFile

from testing.logs import python_log

DECLARED = {
    "entrant_name": "Ada Entrant",
    "email": "ada@example.org",
    "publish": True,
    "cpu_model": "Xeon X5460",
    "sockets": 2,
    "cores": 8,
    "cpu_ghz": 3.16,
    "memory_gb": 16,
    "drives": 8,
    "drive_kind": "hdd",
    "raid_level": "RAID 5",
    "direct_attached": True,
    "os": "CentOS 5.1",
    "server_family": "mysql",
    "server_version": "5.1.25-rc",
    "storage_engine": "InnoDB",
    "storage_engine_version": "plugin 1.0",
    "solution_description": "Stock **InnoDB**, 12 GB buffer pool.",
    "server_config": "[mysqld]\ninnodb_buffer_pool_size=12G\n",
}


def upload(data: bytes | None = None, name: str = "iibench.log") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, python_log() if data is None else data)
