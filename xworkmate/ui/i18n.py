"""The window's language: translators, the CJK font fallback and Settings → Language (issue 20).

``install_translations`` runs on the QApplication before any widget is built:
it resolves the person's choice (``xworkmate.preferences``; "system" follows
``QLocale.system()``) and installs the app's compiled catalogue
(``resources/i18n/xworkmate_<language>.qm``, found like the other resources,
in a PyInstaller bundle too) and, for Chinese, Qt's own ``qtbase_zh_CN.qm``
so the file picker and the standard buttons speak it as well. A catalogue
that is not there (not built yet) logs one warning and the window runs in
English. The choice applies at the next start; the menu says so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator
from PySide6.QtGui import QAction, QActionGroup, QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from xworkmate.preferences import (
    CATALOGUE_FOLDER,
    QT_CATALOGUES,
    Language,
    app_catalogue,
    chosen_language,
    load_preferences,
    save_preferences,
)
from xworkmate.ui.resources import resource_dir_candidates

log = logging.getLogger(__name__)

# Families that carry Simplified Chinese glyphs, the first installed one backs the window's font.
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Noto Sans SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
    "Microsoft YaHei",
    "PingFang SC",
)
LANGUAGE_ACTION_NAMES: dict[Language, str] = {
    Language.SYSTEM: "languageSystemAction",
    Language.ENGLISH: "languageEnglishAction",
    Language.CHINESE: "languageChineseAction",
}
# Each language is named in itself, as language menus do, so a person who cannot read the current one finds theirs.
LANGUAGE_ENDONYMS: dict[Language, str] = {Language.ENGLISH: "English", Language.CHINESE: "简体中文"}

_installed: list[QTranslator] = []
_substituted: list[str] = []
_active: list[Language] = [Language.ENGLISH]


def resolve_language(choice: Language, locale: QLocale | None = None) -> Language:
    """The language the window speaks for ``choice``: "system" is Chinese for a Chinese locale, else English."""
    if choice is not Language.SYSTEM:
        return choice
    system = locale if locale is not None else QLocale.system()
    return Language.CHINESE if system.language() == QLocale.Language.Chinese else Language.ENGLISH


def active_language() -> Language:
    """The language the running window speaks (what ``install_translations`` installed)."""
    return _active[0]


def catalogue_candidates(language: Language) -> list[Path]:
    """Where the app's compiled catalogue for ``language`` may be, most specific first."""
    return [folder / CATALOGUE_FOLDER / app_catalogue(language) for folder in resource_dir_candidates()]


def qt_translations_dir() -> Path:
    """Qt's own catalogues (``qtbase_*.qm``), as PySide6 ships them."""
    return Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))


def install_translations(app: QCoreApplication, choice: Language) -> Language:
    """Install the catalogues for ``choice`` (replacing any installed before); returns the language spoken."""
    remove_translations(app)
    language = resolve_language(choice)
    found = next((path for path in catalogue_candidates(language) if path.is_file()), None)
    if found is None:
        if language is not Language.ENGLISH:  # English is the source text; its catalogue only adds plural forms
            looked = "; ".join(str(path) for path in catalogue_candidates(language))
            log.warning("no %s catalogue (looked in: %s); the window speaks English", language.value, looked)
        return _activate(Language.ENGLISH)
    if not _load(app, found):
        log.warning("the catalogue %s could not be loaded; the window speaks English", found)
        return _activate(Language.ENGLISH)
    for name in QT_CATALOGUES.get(language, ()):
        path = qt_translations_dir() / name
        if not _load(app, path):
            log.warning("Qt's own catalogue %s could not be loaded; Qt's dialogs stay in English", path)
    if language is Language.CHINESE:
        _add_cjk_fallback()
    return _activate(language)


def remove_translations(app: QCoreApplication) -> None:
    """Back to the English source texts (and the font without the CJK fallback)."""
    while _installed:
        translator = _installed.pop()
        app.removeTranslator(translator)
        translator.deleteLater()
    while _substituted:
        QFont.removeSubstitutions(_substituted.pop())
    _activate(Language.ENGLISH)


def install_chosen_translations(app: QCoreApplication, home: Path) -> Language:
    """``install_translations`` for the person's saved choice (or ``XWORKMATE_LANGUAGE``)."""
    return install_translations(app, chosen_language(home))


def _load(app: QCoreApplication, path: Path) -> bool:
    translator = QTranslator(app)
    if not path.is_file() or not translator.load(str(path)):
        return False
    app.installTranslator(translator)
    _installed.append(translator)
    return True


def _activate(language: Language) -> Language:
    _active[0] = language
    # Sizes and numbers Qt formats with the default locale follow the window's language (issue 30); an
    # English window on a non-Chinese system keeps the system's own formats.
    system = QLocale.system()
    if language is Language.CHINESE:
        QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    elif system.language() == QLocale.Language.Chinese:
        QLocale.setDefault(QLocale(QLocale.Language.English))
    else:
        QLocale.setDefault(system)
    return language


def _add_cjk_fallback() -> None:
    """Back the window's font with an installed CJK family; nothing when none is installed."""
    installed = set(QFontDatabase.families())
    cjk = next((family for family in CJK_FAMILIES if family in installed), None)
    if cjk is None:
        log.info("no CJK font installed (install fonts-noto-cjk); Chinese text uses whatever Qt finds")
        return
    family = QGuiApplication.font().family()
    if cjk != family and cjk not in QFont.substitutes(family):
        QFont.insertSubstitution(family, cjk)
        _substituted.append(family)


class LanguageMenu(QObject):
    """Settings → Language: follow the system, English or 简体中文, remembered in the preferences file.

    The window keeps the language it started with; ``notify`` tells the person
    that the choice applies when XWorkmate starts again.
    """

    def __init__(self, window: QWidget, home: Path, notify: Callable[[str], None]) -> None:
        super().__init__(window)
        self.setObjectName("languageMenuOwner")
        self._home = home
        self._notify = notify
        self.group = QActionGroup(self)
        self.group.setExclusive(True)
        self.actions: dict[Language, QAction] = {}
        for language in Language:
            label = LANGUAGE_ENDONYMS.get(language) or self.tr("Follow the system")
            action = QAction(label, window)
            action.setObjectName(LANGUAGE_ACTION_NAMES[language])
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, chosen=language: self.choose(chosen))
            self.group.addAction(action)
            self.actions[language] = action
        self.actions[load_preferences(home).language].setChecked(True)

    def add_menu(self, parent: QMenu) -> QMenu:
        menu = parent.addMenu(self.tr("&Language"))
        menu.setObjectName("languageMenu")
        for action in self.actions.values():
            menu.addAction(action)
        return menu

    def choose(self, language: Language) -> None:
        """The person picked a language: remember it; say when it takes effect."""
        self.actions[language].setChecked(True)
        try:
            save_preferences(self._home, replace(load_preferences(self._home), language=language))
        except OSError as exc:
            log.warning("could not save the language preference: %s", exc)
            self._notify(self.tr("The language could not be saved: {problem}").format(problem=exc.strerror or exc))
            return
        if resolve_language(language) is active_language():
            self._notify(self.tr("XWorkmate already speaks this language."))
        else:
            self._notify(self.tr("The language changes when XWorkmate starts again."))
