"""Setup: what an entry ran on and with. The server and engine declared (`engines`), the declared
configuration read into settings and which of them a rerun may apply (`server_settings`,
`declared`), the settings the entry's log printed (`entry_settings`), several entries' settings
side by side (`diff`), how a verification scales them down (`scaling`) and a CPU model's one
name whatever its spelling (`cpus`).

`engines`, `server_settings`, `diff`, `scaling` and `cpus` are pure. May import: the models and
`logparse`; never `entries`, `web`, `live` or `runner`.
"""
