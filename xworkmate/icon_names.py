"""The window's icon set (issue 30 item 1), named here without Qt so the window (``ui/resources``) and the
bundle's manifest (``packaging/bundle_manifest.py``) agree: ``resources/icons/<name>.svg``, simple strokes in
``currentColor``, which the window fills with a theme colour."""

ICONS_FOLDER = "icons"
ICON_NAMES = ("new-line", "archive", "unarchive", "stop", "send", "pane-left", "pane-right")
