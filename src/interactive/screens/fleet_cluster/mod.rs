//! The fleet's cluster-wide lists (`2`, Tab): the top processes, pods or namespaces across
//! every host by one resource type or MR bytes, with their host (`o` the kind, `s` the type),
//! the ERROR QPs of every device (`e`) and every leak suspect (`a`). Three object tables of
//! the single-host view's table machine, filled from the fleet model's lists.

pub(crate) mod draw;

use crate::fleet::model::cells::consumer_name;
use crate::fleet::model::{
    ConsumerKind, FleetFilter, FleetReading, Metric, cluster_error_qps, cluster_suspects,
    top_consumers,
};
use crate::fleet::report::metrics;
use crate::interactive::widgets::table::{Cell, Column, ObjectTable, Row};
use crate::model::consumers::SortDirection;

/// Which of the three lists has the cursor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterList {
    Consumers,
    ErrorQps,
    Leaks,
}

/// The cluster screen's state: the lists' rows, what the consumers are ranked by, and the
/// hosts each row leads to on Enter.
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterScreen {
    pub kind: ConsumerKind,
    pub metric: Metric,
    pub consumers: ObjectTable,
    pub error_qps: ObjectTable,
    pub leaks: ObjectTable,
    /// The host of each row, by list, in the rows' id order.
    hosts: [Vec<String>; 3],
}

impl Default for ClusterScreen {
    fn default() -> Self {
        ClusterScreen {
            kind: ConsumerKind::Process,
            metric: Metric::Objects(crate::model::ResourceType::Qp),
            consumers: ObjectTable::new(consumer_columns(), 0, SortDirection::Descending),
            error_qps: ObjectTable::new(error_columns(), 0, SortDirection::Descending),
            leaks: ObjectTable::new(leak_columns(), 0, SortDirection::Ascending),
            hosts: Default::default(),
        }
    }
}

fn consumer_columns() -> Vec<Column> {
    vec![
        Column::right("VALUE", 10),
        Column::left("NAME", 28),
        Column::left("HOST", 20).keep(110),
        Column::left("NAMESPACE/POD", 30).keep(60),
    ]
}

fn error_columns() -> Vec<Column> {
    vec![
        Column::right("ERRQP", 6),
        Column::left("HOST", 24),
        Column::left("DEVICE", 10),
        Column::right("OLDEST", 8).keep(60),
    ]
}

fn leak_columns() -> Vec<Column> {
    vec![
        Column::left("HOST", 24),
        Column::left("NAME", 24),
        Column::right("PID", 8),
        Column::left("TYPE", 6),
    ]
}

impl ClusterScreen {
    pub fn table(&self, list: ClusterList) -> &ObjectTable {
        match list {
            ClusterList::Consumers => &self.consumers,
            ClusterList::ErrorQps => &self.error_qps,
            ClusterList::Leaks => &self.leaks,
        }
    }

    pub fn table_mut(&mut self, list: ClusterList) -> &mut ObjectTable {
        match list {
            ClusterList::Consumers => &mut self.consumers,
            ClusterList::ErrorQps => &mut self.error_qps,
            ClusterList::Leaks => &mut self.leaks,
        }
    }

    /// The host of the selected row of `list`.
    pub fn selected_host(&self, list: ClusterList) -> Option<&str> {
        let row = self.table(list).selected()?;
        let hosts = &self.hosts[list as usize];
        let host = hosts.get(usize::try_from(row.id.1).ok()?)?;
        (!host.is_empty()).then_some(host.as_str())
    }

    /// `o`: processes → pods → namespaces.
    pub fn next_kind(&mut self) {
        let all = ConsumerKind::ALL;
        let i = all.iter().position(|k| *k == self.kind).unwrap_or(0);
        self.kind = all[(i + 1) % all.len()];
    }

    /// `s`, `<`: the next (or previous) resource type, then MR bytes.
    pub fn step_metric(&mut self, step: isize) {
        let all: Vec<Metric> = metrics().collect();
        let i = all.iter().position(|m| *m == self.metric).unwrap_or(0) as isize;
        let n = all.len() as isize;
        if let Some(m) = all.get((i + step).rem_euclid(n) as usize) {
            self.metric = *m;
        }
    }

    /// The rows from a reading, under the `/` filter; `top` consumers at most.
    pub fn refresh(&mut self, reading: &FleetReading, filter: &FleetFilter, top: usize) {
        let consumers: Vec<_> = top_consumers(reading, self.kind, self.metric, usize::MAX)
            .into_iter()
            .filter(|c| filter.admits_consumer(c))
            .take(top)
            .collect();
        let rows = consumers
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let value = match self.metric {
                    Metric::MrBytes => Cell::Bytes(c.value as u64),
                    Metric::Objects(_) => Cell::Num(Some(c.value as u64)),
                };
                let place = match (c.namespace.is_empty(), c.pod.is_empty()) {
                    (false, false) => format!("{}/{}", c.namespace, c.pod),
                    (false, true) => c.namespace.clone(),
                    _ => String::new(),
                };
                row(
                    i,
                    vec![value, text(&consumer_name(c)), text(&c.host), text(&place)],
                )
            })
            .collect();
        self.hosts[0] = consumers.iter().map(|c| c.host.clone()).collect();
        self.consumers.set_rows(rows);

        let admitted = |host: &str| {
            filter.is_empty()
                || reading
                    .host(host)
                    .is_some_and(|h| filter.admits_host(h, reading))
        };
        let errors: Vec<_> = cluster_error_qps(reading)
            .into_iter()
            .filter(|e| admitted(&e.host))
            .collect();
        let rows = errors
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let oldest = e
                    .oldest_age_seconds
                    .map_or(String::new(), |a| format!("{a:.0}s"));
                row(
                    i,
                    vec![
                        Cell::Num(Some(e.count)),
                        text(&e.host),
                        text(&e.device),
                        text(&oldest),
                    ],
                )
            })
            .collect();
        self.hosts[1] = errors.iter().map(|e| e.host.clone()).collect();
        self.error_qps.set_rows(rows);

        let leaks: Vec<_> = cluster_suspects(reading)
            .into_iter()
            .filter(|s| admitted(&s.host))
            .collect();
        let rows = leaks
            .iter()
            .enumerate()
            .map(|(i, s)| {
                row(
                    i,
                    vec![text(&s.host), text(&s.name), text(&s.pid), text(&s.rtype)],
                )
            })
            .collect();
        self.hosts[2] = leaks.iter().map(|s| s.host.clone()).collect();
        self.leaks.set_rows(rows);
    }
}

fn text(s: &str) -> Cell {
    Cell::Text(crate::units::clean(s))
}

fn row(i: usize, cells: Vec<Cell>) -> Row {
    Row {
        id: (0, i as u64),
        cells,
        alert: false,
        owner: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::Consumer;
    use crate::model::ResourceType;

    fn consumer(host: &str, name: &str, metric: Metric, value: f64) -> Consumer {
        Consumer {
            host: host.into(),
            pid: "7".into(),
            name: name.into(),
            namespace: "ml".into(),
            pod: format!("{name}-0"),
            container: String::new(),
            metric,
            value,
        }
    }

    #[test]
    fn the_lists_rank_one_metric_keep_their_hosts_and_follow_the_filter() {
        let qp = Metric::Objects(ResourceType::Qp);
        let reading = FleetReading {
            processes: vec![
                consumer("a", "small", qp, 10.0),
                consumer("b", "big", qp, 900.0),
                consumer("c", "bytes", Metric::MrBytes, 4096.0),
            ],
            ..FleetReading::default()
        };
        let mut screen = ClusterScreen::default();
        screen.refresh(&reading, &FleetFilter::default(), 10);
        assert_eq!(screen.consumers.rows.len(), 2);
        assert_eq!(screen.selected_host(ClusterList::Consumers), Some("b"));
        screen.step_metric(-1);
        assert_eq!(screen.metric, Metric::MrBytes);
        screen.refresh(&reading, &FleetFilter::default(), 10);
        assert_eq!(screen.selected_host(ClusterList::Consumers), Some("c"));
        screen.step_metric(1);
        screen.refresh(&reading, &FleetFilter::new("small"), 10);
        assert_eq!(screen.consumers.rows.len(), 1);
        screen.next_kind();
        assert_eq!(screen.kind, ConsumerKind::Pod);
    }
}
