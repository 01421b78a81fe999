"""The centre pane: one line's conversation and the composer (SPEC §6, ISO-4, ISO-5).

Cut along its sections (issue 19, item 4): ``rows`` (the roles, ``RowView``, the message header),
``model`` (``MessageListModel``), ``view`` (``MessageListView`` and its delegate) and ``pane``
(``MessagePane``, the composer and its pickers). The names the rest of the window, the tests and the
benchmarks import from ``xworkmate.ui.conversation`` are re-exported here.
"""

from xworkmate.presentation.messages import (
    DISPLAY_LIMIT,
    HIDDEN_FROM_MODEL,
    display_text,
    is_answer,
    is_plan,
    is_thought,
    message_header,
)
from xworkmate.ui.conversation.model import (
    FIRST_PAGE_SIZE,
    MIN_FIRST_PAGE,
    MISSING_MESSAGE_TEXT,
    PAGE_SIZE,
    MessageListModel,
)
from xworkmate.ui.conversation.pane import (
    DEFAULT_PROVIDER_LABEL,
    EMPTY_CONVERSATION_TEXT,
    HEADER_LABEL_MIN_WIDTH,
    NO_PROVIDER_BANNER,
    PERMISSION_CHOICES,
    PICKER_MIN_WIDTH,
    MessagePane,
    line_status_text,
)
from xworkmate.ui.conversation.rows import (
    CACHE_KEY_ROLE,
    CARD_ROLE,
    CHIP_ROLE,
    CONTENT_ROLE,
    EXPANDED_ROLE,
    FORMAT_ROLE,
    HEADER_ROLE,
    HIDDEN_ROLE,
    LIVE_ROLE,
    MESSAGE_ID_ROLE,
    ROLE_ROLE,
    ROW_ROLE,
    SEARCH_HIT_ROLE,
    SOURCE_ROLE,
    STATE_ROLE,
    ModelIndex,
    RowView,
)
from xworkmate.ui.conversation.view import MessageDelegate, MessageListView

__all__ = [
    "CACHE_KEY_ROLE",
    "CARD_ROLE",
    "CHIP_ROLE",
    "CONTENT_ROLE",
    "DEFAULT_PROVIDER_LABEL",
    "DISPLAY_LIMIT",
    "EMPTY_CONVERSATION_TEXT",
    "EXPANDED_ROLE",
    "FIRST_PAGE_SIZE",
    "FORMAT_ROLE",
    "HEADER_LABEL_MIN_WIDTH",
    "HEADER_ROLE",
    "HIDDEN_FROM_MODEL",
    "HIDDEN_ROLE",
    "LIVE_ROLE",
    "MESSAGE_ID_ROLE",
    "MIN_FIRST_PAGE",
    "MISSING_MESSAGE_TEXT",
    "NO_PROVIDER_BANNER",
    "PAGE_SIZE",
    "PERMISSION_CHOICES",
    "PICKER_MIN_WIDTH",
    "ROLE_ROLE",
    "ROW_ROLE",
    "SEARCH_HIT_ROLE",
    "SOURCE_ROLE",
    "STATE_ROLE",
    "MessageDelegate",
    "MessageListModel",
    "MessageListView",
    "MessagePane",
    "ModelIndex",
    "RowView",
    "display_text",
    "is_answer",
    "is_plan",
    "is_thought",
    "line_status_text",
    "message_header",
]
