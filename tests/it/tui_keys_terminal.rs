//! The new keys in a real terminal (tmux), on the built binary: direct sort
//! keys and the footer's hint, the alerts panel with the limit warnings, the
//! full-text box (`w`), a device named in the filter scoping the counts.
//! Each test checks that the restop it started is gone at the end (the
//! shared session does, and kills a leftover when a test fails early).

use crate::tui_terminal::Session;

#[test]
fn sort_keys_alerts_with_limits_and_the_full_text_key() {
    let Some(s) = Session::start(120, 30) else {
        return;
    };
    s.start_restop("--demo-at 90s");

    // A direct sort key: the column is marked and the footer names its key.
    s.send(&["M"]);
    s.wait_for("sorted by MR", |s| {
        s.contains("MR▼") && s.contains("sort MR▼ (M)")
    });
    s.send(&["Q"]);
    s.wait_for("sorted by QP", |s| s.contains("sort QP▼ (Q)"));

    // `a` lists the problems, usage past --warn included.
    s.send(&["a"]);
    let panel = s.wait_for("the problems list", |s| s.contains("─ Problems ("));
    assert!(panel.contains("limit"), "{panel}");
    assert!(panel.contains("mlx5_3 mr at 9"), "{panel}");

    // `w`: the selected alert whole, in a box; any key closes it.
    s.send(&["Home", "w"]);
    s.wait_for("the full text", |s| s.contains("Esc closes, ↑↓ scroll"));
    s.send(&["Escape"]);
    s.wait_for("the box closed", |s| !s.contains("Esc closes, ↑↓ scroll"));
    s.send(&["Escape"]);

    // A device named in the filter scopes the counts.
    s.send(&["/"]);
    s.type_text("mlx5_3");
    s.send(&["Enter"]);
    s.wait_for("counts on mlx5_3", |s| {
        s.contains("on mlx5_3: ") && s.contains("Top consumers") && s.contains("on mlx5_3")
    });

    s.send(&["q"]);
    s.assert_restored();
}
