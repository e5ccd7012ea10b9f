//! The interactive group: how the full-screen view draws and whether it may
//! act on the host. The palette's names ([`ThemeKind`]) live here, below the
//! view, because the command line and the config file parse them too; the
//! colours each palette draws are the view's own (`ui::theme`).

/// The palettes (`--theme`, `theme` in the config file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ThemeKind {
    /// For dark and light terminals alike: the terminal's foreground, colour for state.
    #[default]
    Default,
    /// For light backgrounds: darker colours where yellow and cyan fade on white.
    Light,
    /// Bright colours, nothing dimmed, warning underlined and critical reversed.
    HighContrast,
}

impl ThemeKind {
    /// The name the command line and the config file use.
    pub fn parse(name: &str) -> Option<ThemeKind> {
        match name {
            "default" => Some(ThemeKind::Default),
            "light" => Some(ThemeKind::Light),
            "high-contrast" => Some(ThemeKind::HighContrast),
            _ => None,
        }
    }
}

/// The interactive group: how the full-screen view draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InteractiveSettings {
    /// Capture the mouse (`--no-mouse`, `mouse = false`).
    pub mouse: bool,
    /// Use colours (`--no-color`, `color = false`, a non-empty `NO_COLOR`).
    pub color: bool,
    /// The palette (`--theme`, `theme = "light"`).
    pub theme: ThemeKind,
    /// Never send a signal (`--read-only`, `read_only = true`).
    pub read_only: bool,
    /// Draw with ASCII only (`--ascii`, `ascii = true`, or a locale that is
    /// set and not UTF-8, such as `LANG=C`).
    pub ascii: bool,
}

impl Default for InteractiveSettings {
    fn default() -> Self {
        InteractiveSettings {
            mouse: true,
            color: true,
            theme: ThemeKind::default(),
            read_only: false,
            ascii: false,
        }
    }
}

/// True when the locale that governs the character set (the first set of
/// `LC_ALL`, `LC_CTYPE`, `LANG`, as the C library reads them) is not UTF-8,
/// as with `LANG=C`: the terminal may then show none of the view's symbols.
/// With none of them set the view stays Unicode, as most terminals today are.
pub(crate) fn locale_is_not_utf8(var: impl Fn(&str) -> Option<String>) -> bool {
    let Some(locale) = ["LC_ALL", "LC_CTYPE", "LANG"]
        .into_iter()
        .filter_map(&var)
        .find(|v| !v.is_empty())
    else {
        return false;
    };
    let lower = locale.to_ascii_lowercase();
    !(lower.contains("utf-8") || lower.contains("utf8"))
}

/// [`locale_is_not_utf8`] of this process's environment.
pub fn locale_env_is_not_utf8() -> bool {
    locale_is_not_utf8(|name| std::env::var(name).ok())
}

/// True when the environment asks for no colour (<https://no-color.org>).
pub fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::locale_is_not_utf8;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_set_locale_that_is_not_utf8_asks_for_ascii() {
        assert!(locale_is_not_utf8(env(&[("LANG", "C")])));
        assert!(locale_is_not_utf8(env(&[("LC_ALL", "POSIX")])));
        assert!(locale_is_not_utf8(env(&[("LANG", "en_US.ISO-8859-1")])));
        assert!(!locale_is_not_utf8(env(&[("LANG", "en_US.UTF-8")])));
        assert!(!locale_is_not_utf8(env(&[("LANG", "C.utf8")])));
        // Nothing set: Unicode, as before.
        assert!(!locale_is_not_utf8(env(&[])));
        // LC_ALL wins over LANG, an empty one is not set.
        assert!(locale_is_not_utf8(env(&[
            ("LC_ALL", "C"),
            ("LANG", "en_US.UTF-8")
        ])));
        assert!(!locale_is_not_utf8(env(&[
            ("LC_ALL", ""),
            ("LANG", "en_US.UTF-8")
        ])));
        assert!(!locale_is_not_utf8(env(&[
            ("LC_CTYPE", "C.UTF-8"),
            ("LANG", "C")
        ])));
    }
}
