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
}

impl Default for InteractiveSettings {
    fn default() -> Self {
        InteractiveSettings {
            mouse: true,
            color: true,
            theme: ThemeKind::default(),
            read_only: false,
        }
    }
}

/// True when the environment asks for no colour (<https://no-color.org>).
pub fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}
