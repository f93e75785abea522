"""The form data a browser sends for the entry form."""

from testing.entries import upload


def form_data(declared: dict, log=None) -> dict:
    data = {**declared, "log": log or upload()}
    data["publish"] = "on" if declared["publish"] else ""
    data["direct_attached"] = "on" if declared["direct_attached"] else ""
    return data
