//! The interactive group: how the full-screen view draws. `--group` started here and
//! also groups the `--once`/`--batch` report and adds `groups` to `--json`.

use crate::model::owner_group::OwnerGroup;
use clap::Args;

#[derive(Clone, Debug, Default, Args)]
#[group(id = "interactive")]
#[command(next_help_heading = "Interactive view")]
pub struct InteractiveArgs {
    /// Do not capture the mouse in the interactive view.
    #[arg(
        long = "no-mouse",
        long_help = "Leave the mouse to the terminal (text selection, scrollback) instead of \
                     using it for scrolling, selecting rows and sorting by a click on a \
                     column header.\n\nExample: restop --no-mouse"
    )]
    pub no_mouse: bool,

    /// No colours in the interactive view.
    #[arg(
        long = "no-color",
        long_help = "Draw without colours (state is still shown by text and markers). \
                     Setting the NO_COLOR environment variable to anything non-empty does \
                     the same.\n\nExample: restop --no-color"
    )]
    pub no_color: bool,

    /// Rows of the consumers table: process, container or pod (also --once, --json).
    #[arg(
        long = "group",
        value_name = "BY",
        value_enum,
        long_help = "What a row of the consumers table stands for: a process, or the \
                     processes of one container or one Kubernetes pod summed (processes \
                     outside containers or pods stay rows of their own). In the \
                     interactive view the start, which the o key cycles; in --once and \
                     --batch the report's rows; --json then adds a `groups` list. \
                     [default: process]\n\n\
                     Example: restop --once --group pod"
    )]
    pub group: Option<OwnerGroup>,

    /// Palette of the interactive view: default, light, high-contrast.
    #[arg(
        long,
        value_name = "THEME",
        value_enum,
        long_help = "Palette of the interactive view: `default` (the terminal's own \
                     foreground, colour only for state), `light` (darker colours for light \
                     backgrounds, where yellow and cyan fade), `high-contrast` (bright \
                     colours, nothing dimmed, warning underlined and critical reversed). \
                     [default: default; or `theme` in the config file]\n\n\
                     Example: restop --theme light"
    )]
    pub theme: Option<crate::settings::ThemeKind>,

    /// Never send a signal to a process (F9/K are off).
    #[arg(
        long = "read-only",
        long_help = "Turn off the one thing in restop that acts on the host: sending a \
                     signal to the selected process (F9 or K in the interactive view). \
                     restop then only reads. [or `read_only = true` in the config file]\n\n\
                     Example: restop --read-only"
    )]
    pub read_only: bool,

    /// Draw with ASCII only (automatic under a locale that is not UTF-8).
    #[arg(
        long = "ascii",
        long_help = "Draw the interactive view with ASCII characters only: bars as #, \
                     borders as - and |, arrows and marks as letters and signs. This is the \
                     default when the locale (LC_ALL, LC_CTYPE or LANG, the first one set) is \
                     set and is not UTF-8, such as LANG=C, where the terminal may not show \
                     the Unicode symbols (the fleet view follows the locale too); \
                     `ascii = false` in the config file keeps Unicode there. [or \
                     `ascii = true` in the config file]\n\nExample: restop --ascii"
    )]
    pub ascii: bool,
}
