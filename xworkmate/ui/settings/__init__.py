"""Settings dialogs: providers and ACP agents, MCP servers, the theme, and the keyboard shortcuts
(SPEC §5, §7). This package imports nothing; each dialog's module loads when it is first opened."""
