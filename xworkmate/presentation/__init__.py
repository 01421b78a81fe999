"""What the window shows, worked out without Qt (issue 19, item 3; SPEC §1).

Between the controllers and the widgets: the texts of tool cards, plans and thoughts (``cards``), the
person's language for the core's texts (``wording``), a file's preview (``files``), the task tree's order
(``tree``) and what kind of row a message is (``messages``). Nothing here imports PySide6: its tests run in
the core's own install (``make test-core``). Texts are translated through ``text.translate``, which the
window points at Qt's translation when it loads (``xworkmate.ui``); without it every text is its English
source.
"""
