//! Playing a recording in the interactive view: which snapshot is shown,
//! whether it plays, how fast, and when the next one is due.
//!
//! Pure: time comes in with `Tick` events (wall clock, Unix ms) and the
//! recorded collection times; the snapshot to show goes out as a command, so
//! timing is tested without a clock and nothing sleeps.

use crate::model::{Millis, UnixMs};

/// Playback speeds, in quarters: ¼× … 64×.
const SPEEDS_X4: [u64; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const NORMAL_SPEED: usize = 2;

/// A pause in the recording longer than this many typical intervals (restop
/// stopped and restarted on the same file, a suspended machine) is played
/// as that many intervals.
const LONGEST_PAUSE_IN_STEPS: u64 = 5;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayState {
    /// Recorded collection time of every snapshot, in file order.
    times: Vec<UnixMs>,
    /// Longest wait between two snapshots at 1×.
    longest_wait_ms: Millis,
    /// Index of the snapshot shown (or asked for).
    position: usize,
    /// Index last asked of the replayer.
    requested: Option<usize>,
    playing: bool,
    speed: usize,
    /// Wall clock when the next snapshot is due while playing.
    due_ms: Option<UnixMs>,
}

impl ReplayState {
    /// Starts at the first snapshot, playing at 1×.
    pub fn new(times: Vec<UnixMs>) -> ReplayState {
        let mut steps: Vec<Millis> = times
            .windows(2)
            .map(|w| w[1].since(w[0]))
            .filter(|d| *d > Millis::ZERO)
            .collect();
        steps.sort_unstable();
        let typical = steps.get(steps.len() / 2).copied().unwrap_or(Millis(1_000));
        ReplayState {
            longest_wait_ms: typical.scale(LONGEST_PAUSE_IN_STEPS, 1).max(Millis(1_000)),
            playing: times.len() > 1,
            times,
            position: 0,
            requested: None,
            speed: NORMAL_SPEED,
            due_ms: None,
        }
    }

    pub fn len(&self) -> usize {
        self.times.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Index of the snapshot shown (0-based).
    pub fn position(&self) -> usize {
        self.position
    }

    pub fn playing(&self) -> bool {
        self.playing
    }

    pub fn at_end(&self) -> bool {
        self.position + 1 >= self.times.len()
    }

    /// Recorded time of the snapshot shown.
    pub fn recorded_at_ms(&self) -> Option<UnixMs> {
        self.times.get(self.position).copied()
    }

    /// `1×`, `4×`, `¼×`.
    pub fn speed_label(&self) -> String {
        match SPEEDS_X4[self.speed] {
            1 => "¼×".to_string(),
            2 => "½×".to_string(),
            x4 => format!("{}×", x4 / 4),
        }
    }

    /// Wall-clock wait after snapshot `i` before the next one, at this speed.
    fn wait_after(&self, i: usize) -> Millis {
        let recorded = match (self.times.get(i), self.times.get(i + 1)) {
            (Some(a), Some(b)) => b.since(*a).min(self.longest_wait_ms),
            _ => Millis::ZERO,
        };
        recorded.scale(4, SPEEDS_X4[self.speed])
    }

    /// Time passed: moves on to the snapshot due at `now_ms`, skipping those
    /// that are already past (fast speeds).
    pub fn tick(&mut self, now_ms: UnixMs) {
        if !self.playing {
            return;
        }
        let mut due = match self.due_ms {
            Some(due) => due,
            None => now_ms.plus(self.wait_after(self.position)),
        };
        while !self.at_end() && now_ms >= due {
            self.position += 1;
            due = due.plus(self.wait_after(self.position));
        }
        if self.at_end() {
            self.playing = false;
            self.due_ms = None;
        } else {
            self.due_ms = Some(due);
        }
    }

    /// How long until the next snapshot is due (for the event loop's wait).
    pub fn wait_ms(&self, now_ms: UnixMs) -> Option<Millis> {
        self.due_ms.map(|due| due.since(now_ms))
    }

    /// Space: pause, or play on; at the end, play again from the start.
    pub fn toggle_play(&mut self, now_ms: UnixMs) {
        if self.playing {
            self.playing = false;
            self.due_ms = None;
            return;
        }
        if self.at_end() {
            self.position = 0;
        }
        self.playing = !self.at_end();
        self.restart_wait(now_ms);
    }

    /// One snapshot forward (positive) or back; pauses, as stepping means
    /// looking closely.
    pub fn step(&mut self, delta: isize) {
        self.playing = false;
        self.due_ms = None;
        self.position = self
            .position
            .saturating_add_signed(delta)
            .min(self.times.len().saturating_sub(1));
    }

    /// Jumps by `delta_ms` of recorded time: to the first snapshot at least
    /// that far ahead, or the last one at least that far back.
    pub fn seek_by(&mut self, delta_ms: i64, now_ms: UnixMs) {
        let Some(here) = self.recorded_at_ms() else {
            return;
        };
        let target = here.plus_signed(delta_ms);
        self.position = if delta_ms >= 0 {
            (self.position + 1..self.times.len())
                .find(|&i| self.times[i] >= target)
                .unwrap_or(self.times.len().saturating_sub(1))
        } else {
            (0..self.position)
                .rev()
                .find(|&i| self.times[i] <= target)
                .unwrap_or(0)
        };
        self.after_jump(now_ms);
    }

    pub fn seek_start(&mut self, now_ms: UnixMs) {
        self.position = 0;
        self.after_jump(now_ms);
    }

    pub fn seek_end(&mut self, now_ms: UnixMs) {
        self.position = self.times.len().saturating_sub(1);
        self.after_jump(now_ms);
    }

    fn after_jump(&mut self, now_ms: UnixMs) {
        if self.at_end() {
            self.playing = false;
        }
        self.restart_wait(now_ms);
    }

    /// Faster (`steps` > 0) or slower; the wait in progress is rescaled.
    pub fn change_speed(&mut self, steps: isize, now_ms: UnixMs) {
        let old = SPEEDS_X4[self.speed];
        self.speed = self
            .speed
            .saturating_add_signed(steps)
            .min(SPEEDS_X4.len() - 1);
        let new = SPEEDS_X4[self.speed];
        if let Some(due) = self.due_ms {
            let left = due.since(now_ms);
            self.due_ms = Some(now_ms.plus(left.scale(old, new)));
        }
    }

    fn restart_wait(&mut self, now_ms: UnixMs) {
        self.due_ms = self
            .playing
            .then(|| now_ms.plus(self.wait_after(self.position)));
    }

    /// The snapshot to ask the replayer for, once per change of position.
    pub fn take_request(&mut self) -> Option<usize> {
        if self.times.is_empty() || self.requested == Some(self.position) {
            return None;
        }
        self.requested = Some(self.position);
        Some(self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten snapshots one second apart.
    fn ten() -> ReplayState {
        ReplayState::new((0..10).map(|i| UnixMs(1_000_000 + i * 1_000)).collect())
    }

    #[test]
    fn plays_at_the_recorded_pace() {
        let mut r = ten();
        assert_eq!(r.take_request(), Some(0));
        r.tick(UnixMs(0));
        assert_eq!(r.position(), 0);
        r.tick(UnixMs(999));
        assert_eq!(r.position(), 0);
        assert_eq!(r.wait_ms(UnixMs(999)), Some(Millis(1)));
        r.tick(UnixMs(1_000));
        assert_eq!(r.position(), 1);
        assert_eq!(r.take_request(), Some(1));
        assert_eq!(r.take_request(), None);
        r.tick(UnixMs(3_500));
        assert_eq!(r.position(), 3, "late ticks skip what is past");
    }

    #[test]
    fn stops_at_the_end_and_space_plays_again_from_the_start() {
        let mut r = ten();
        r.tick(UnixMs(0));
        r.tick(UnixMs(60_000));
        assert_eq!(r.position(), 9);
        assert!(r.at_end() && !r.playing());
        r.toggle_play(UnixMs(60_000));
        assert_eq!(r.position(), 0);
        assert!(r.playing());
    }

    #[test]
    fn faster_speeds_shorten_the_waits() {
        let mut r = ten();
        r.change_speed(2, UnixMs(0));
        assert_eq!(r.speed_label(), "4×");
        r.tick(UnixMs(0));
        r.tick(UnixMs(250));
        assert_eq!(r.position(), 1);
        r.change_speed(-4, UnixMs(250));
        assert_eq!(r.speed_label(), "¼×");
        r.change_speed(-1, UnixMs(250));
        assert_eq!(r.speed_label(), "¼×", "no slower than a quarter");
        r.change_speed(20, UnixMs(250));
        assert_eq!(r.speed_label(), "64×");
    }

    #[test]
    fn speed_changes_rescale_the_wait_in_progress() {
        let mut r = ten();
        r.tick(UnixMs(0));
        assert_eq!(r.wait_ms(UnixMs(0)), Some(Millis(1_000)));
        r.change_speed(1, UnixMs(600));
        assert_eq!(
            r.wait_ms(UnixMs(600)),
            Some(Millis(200)),
            "400 ms left at 1× is 200 at 2×"
        );
    }

    #[test]
    fn stepping_pauses_and_stays_in_range() {
        let mut r = ten();
        r.step(1);
        assert_eq!(r.position(), 1);
        assert!(!r.playing());
        r.step(-5);
        assert_eq!(r.position(), 0);
        r.step(50);
        assert_eq!(r.position(), 9);
        r.tick(UnixMs(100_000));
        assert_eq!(r.position(), 9, "paused: ticks change nothing");
    }

    #[test]
    fn seeking_by_recorded_time() {
        let mut r = ReplayState::new((0..300).map(|i| UnixMs(i * 2_000)).collect());
        r.seek_by(60_000, UnixMs(0));
        assert_eq!(r.position(), 30);
        assert!(r.playing(), "seeking keeps playing");
        r.seek_by(-60_000, UnixMs(0));
        assert_eq!(r.position(), 0);
        r.seek_by(-60_000, UnixMs(0));
        assert_eq!(r.position(), 0);
        r.seek_end(UnixMs(0));
        assert_eq!(r.position(), 299);
        assert!(!r.playing());
        r.seek_by(60_000, UnixMs(0));
        assert_eq!(r.position(), 299);
        r.seek_start(UnixMs(0));
        assert_eq!(r.position(), 0);
    }

    #[test]
    fn long_pauses_in_the_recording_are_shortened() {
        // 2 s steps, then restop was off for an hour.
        let mut times: Vec<UnixMs> = (0..10).map(|i| UnixMs(i * 2_000)).collect();
        times.push(UnixMs(18_000 + 3_600_000));
        let mut r = ReplayState::new(times);
        r.seek_by(16_000, UnixMs(0));
        assert_eq!(r.position(), 8);
        r.step(1);
        r.toggle_play(UnixMs(0));
        assert_eq!(
            r.wait_ms(UnixMs(0)),
            Some(Millis(10_000)),
            "five typical intervals"
        );
    }

    #[test]
    fn absurd_recorded_times_do_not_overflow() {
        let mut r = ReplayState::new(vec![
            UnixMs(0),
            UnixMs(u64::MAX / 2),
            UnixMs(u64::MAX),
            UnixMs(3),
        ]);
        r.change_speed(-2, UnixMs(u64::MAX - 5));
        for now in [0, u64::MAX / 3, u64::MAX] {
            r.tick(UnixMs(now));
            r.change_speed(1, UnixMs(now));
            r.seek_by(60_000, UnixMs(now));
            r.seek_by(-60_000, UnixMs(now));
        }
    }

    #[test]
    fn a_single_snapshot_never_plays() {
        let mut r = ReplayState::new(vec![UnixMs(5)]);
        assert!(!r.playing());
        r.toggle_play(UnixMs(0));
        assert!(!r.playing());
        assert_eq!(r.take_request(), Some(0));
    }
}
