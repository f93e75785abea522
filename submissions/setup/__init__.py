"""Setup: what an entry ran on and with. The server and engine declared (`engines`), the declared
configuration read into settings and which of them a rerun may apply (`server_settings`,
`declared`), the settings the entry's log printed (`entry_settings`), several entries' settings
side by side (`diff`) and how a verification scales them down (`scaling`).

`engines`, `server_settings`, `diff` and `scaling` are pure. May import: the models and
`logparse`; never `entries`, `web`, `live` or `runner`.
"""
