//! Styles. Text keeps the terminal's own foreground so light and dark
//! terminals both read well; colour marks only state (levels, alerts, the
//! demo badge), and `NO_COLOR` turns it into bold/reverse.

use crate::model::limits::Level;
use crate::model::{PortState, SourceKind};
use ratatui::style::{Color, Modifier, Style};

/// The palettes' names are settings (the command line and the config file
/// parse them); what each one draws is here.
pub use crate::settings::ThemeKind;

#[derive(Clone, Copy, Debug)]
pub struct Theme {
    color: bool,
    kind: ThemeKind,
}

impl Theme {
    pub fn new(color: bool) -> Theme {
        Theme::of(color, ThemeKind::Default)
    }

    pub fn of(color: bool, kind: ThemeKind) -> Theme {
        Theme { color, kind }
    }

    /// `c` as the theme draws it.
    fn fg(&self, c: Color) -> Style {
        if !self.color {
            return Style::new();
        }
        let c = match (self.kind, c) {
            (ThemeKind::Light, Color::Yellow) => Color::Rgb(0x9a, 0x5b, 0x00),
            (ThemeKind::Light, Color::Cyan) => Color::Blue,
            (ThemeKind::Light, Color::Green) => Color::Rgb(0x00, 0x70, 0x00),
            (ThemeKind::HighContrast, Color::Yellow) => Color::LightYellow,
            (ThemeKind::HighContrast, Color::Cyan) => Color::LightCyan,
            (ThemeKind::HighContrast, Color::Green) => Color::LightGreen,
            (ThemeKind::HighContrast, Color::Red) => Color::LightRed,
            (_, c) => c,
        };
        Style::new().fg(c)
    }

    pub fn plain(&self) -> Style {
        Style::new()
    }

    pub(crate) fn bold(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub fn dim(&self) -> Style {
        if self.kind == ThemeKind::HighContrast {
            // Dimmed text is what high contrast is asked to avoid.
            return Style::new();
        }
        Style::new().add_modifier(Modifier::DIM)
    }

    /// Screen titles and the header's program name.
    pub fn title(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// Column headers.
    pub(crate) fn column_header(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    pub fn selected(&self, focused: bool) -> Style {
        if focused {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new().add_modifier(Modifier::UNDERLINED)
        }
    }

    /// Something broken (ERROR QPs, failed collection).
    pub fn alert(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn warning(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    /// Without colour (`NO_COLOR`) warning and critical still differ:
    /// warning underlined, critical reversed.
    pub fn level(&self, level: Level) -> Style {
        let bold = Modifier::BOLD;
        let marked = !self.color || self.kind == ThemeKind::HighContrast;
        match (level, !marked) {
            (Level::Normal, _) => self.fg(Color::Green),
            (Level::Warn, true) => self.fg(Color::Yellow).add_modifier(bold),
            (Level::Critical, true) => self.fg(Color::Red).add_modifier(bold),
            (Level::Warn, false) => self
                .fg(Color::Yellow)
                .add_modifier(bold | Modifier::UNDERLINED),
            (Level::Critical, false) => self.fg(Color::Red).add_modifier(bold | Modifier::REVERSED),
        }
    }

    /// The empty part of a gauge.
    pub(crate) fn gauge_track(&self) -> Style {
        self.dim()
    }

    pub fn port(&self, state: Option<PortState>) -> Style {
        match state {
            Some(PortState::Active) => self.fg(Color::Green),
            Some(PortState::Down) | None => self.fg(Color::Red),
            Some(_) => self.fg(Color::Yellow),
        }
    }

    /// The source badge: simulated or recorded data must never pass for live.
    pub(crate) fn source_badge(&self, source: SourceKind) -> Style {
        let base = Style::new().add_modifier(Modifier::BOLD);
        match (source, self.color) {
            (SourceKind::Live, _) => base,
            (SourceKind::Demo, true) => base.fg(Color::Black).bg(Color::Yellow),
            (SourceKind::Replay, true) => base.fg(Color::Black).bg(Color::Magenta),
            (_, false) => base.add_modifier(Modifier::REVERSED),
        }
    }

    pub(crate) fn frozen_badge(&self) -> Style {
        let base = Style::new().add_modifier(Modifier::BOLD);
        if self.color {
            base.fg(Color::Black).bg(Color::Cyan)
        } else {
            base.add_modifier(Modifier::REVERSED)
        }
    }

    /// A zero count: present but quiet.
    pub fn zero(&self) -> Style {
        self.dim()
    }
}
