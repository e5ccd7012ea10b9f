//! Tests of the cgroup rdma quota reader on fake cgroup trees.

use super::*;
use std::fs;

#[test]
fn rdma_files_parse_numbers_and_max() {
    let text = "mlx5_0 hca_handle=2 hca_object=2000\nmlx5_1 hca_handle=max hca_object=max\n\
                bad hca_handle=lots hca_object=7 extra\n\n";
    let m = parse_rdma_file(text);
    assert_eq!(
        m["mlx5_0"],
        RdmaValues {
            hca_handle: Some(2),
            hca_object: Some(2000)
        }
    );
    assert_eq!(m["mlx5_1"], RdmaValues::default());
    assert_eq!(
        m["bad"],
        RdmaValues {
            hca_handle: None,
            hca_object: Some(7)
        }
    );
    assert_eq!(m.len(), 3);
}

#[test]
fn cgroup_path_prefers_a_v1_rdma_hierarchy() {
    assert_eq!(
        rdma_cgroup_path("0::/kubepods/pod1/c1\n"),
        Some((Hierarchy::Unified, "/kubepods/pod1/c1".into()))
    );
    assert_eq!(
        rdma_cgroup_path("12:rdma:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n"),
        Some((Hierarchy::V1Rdma, "/docker/abc".into()))
    );
    assert_eq!(rdma_cgroup_path("3:cpu:/x\ngarbage\n"), None);
}

#[test]
fn mounts_come_from_mountinfo() {
    let mi = "35 24 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n\
              40 35 0:35 / /sys/fs/cgroup/rdma\\040v1 rw - cgroup cgroup rw,rdma\n\
              41 35 0:36 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n";
    let m = parse_cgroup_mounts(mi);
    assert_eq!(m.unified, Some(PathBuf::from("/sys/fs/cgroup")));
    assert_eq!(m.v1_rdma, Some(PathBuf::from("/sys/fs/cgroup/rdma v1")));
}

#[test]
fn ancestry_stops_below_the_root() {
    let walk = |p| ancestry(p).collect::<Vec<_>>();
    assert_eq!(walk("/a/b"), ["/a/b", "/a"]);
    assert_eq!(walk("/a//b/"), ["/a//b", "/a"]);
    assert!(walk("/").is_empty());
    assert!(walk("").is_empty());
}

#[test]
fn a_deep_path_is_walked_in_slices_of_itself() {
    let path = "/a".repeat(30_000);
    let levels: Vec<&str> = ancestry(&path).collect();
    assert_eq!(levels.len(), 30_000);
    assert_eq!(levels.last(), Some(&"/a"));
    // Every level borrows the path: nothing is built per level.
    assert!(
        levels
            .iter()
            .all(|l| path.starts_with(l) && l.as_ptr() == path.as_ptr())
    );
}

#[test]
fn only_levels_short_enough_to_open_are_looked_up() {
    let (tmp, mut reader) = tree();
    // 30,000 levels under the limited pod (60 kB, inside the file bound).
    let deep = format!("0::/kubepods/pod1{}\n", "/a".repeat(30_000));
    fs::write(tmp.path().join("proc/100/cgroup"), deep).unwrap();
    let c = reader.for_process(100).unwrap();
    assert_eq!(c.devices["mlx5_0"].hca_object.cgroup, "/kubepods/pod1");
    // Levels past PATH_MAX cannot be opened and are not even tried.
    assert!(
        reader.levels.len() <= PATH_MAX / 2,
        "{}",
        reader.levels.len()
    );
}

#[test]
fn an_oversized_cgroup_file_is_refused() {
    let (tmp, mut reader) = tree();
    let mut text = "0::/kubepods/pod1/c1\n".to_string();
    text.push_str(&"9:cpu:/x\n".repeat(10_000)); // 90 kB
    fs::write(tmp.path().join("proc/100/cgroup"), &text).unwrap();
    assert_eq!(reader.for_process(100), None);
    // Within the bound the same first line is read.
    text.truncate(CGROUP_FILE_LIMIT as usize - 100);
    fs::write(tmp.path().join("proc/100/cgroup"), &text).unwrap();
    assert!(reader.for_process(100).is_some());
}

#[test]
fn an_oversized_rdma_file_is_refused() {
    let (tmp, mut reader) = tree();
    let dir = tmp.path().join("sys/fs/cgroup/kubepods/pod1/c1");
    let limits = "mlx5_0 hca_handle=4 hca_object=max\n";
    let padding = "mlx5_9 hca_handle=max hca_object=max\n".repeat(30_000); // 1.1 MB
    fs::write(dir.join("rdma.max"), format!("{limits}{padding}")).unwrap();
    let c = reader.for_process(100).unwrap();
    // That level is not read: the container's own hca_handle limit is gone,
    // the pod's limit still binds.
    assert_eq!(c.devices["mlx5_0"].hca_handle.max, None);
    assert_eq!(c.devices["mlx5_0"].hca_object.max, Some(2000));
    reader.begin_round();
    fs::write(dir.join("rdma.max"), limits).unwrap();
    fs::write(dir.join("rdma.current"), padding).unwrap();
    let c = reader.for_process(100).unwrap();
    assert_eq!(c.devices["mlx5_0"].hca_handle.max, Some(4));
    assert_eq!(c.devices["mlx5_0"].hca_handle.current, 0, "usage unread");
}

#[test]
fn an_oversized_mountinfo_is_refused_for_the_default_mount() {
    let (tmp, _) = tree();
    fs::create_dir_all(tmp.path().join("proc/self")).unwrap();
    let elsewhere = "35 24 0:30 / /nonexistent rw - cgroup2 cgroup2 rw\n";
    let mountinfo = tmp.path().join("proc/self/mountinfo");
    fs::write(&mountinfo, elsewhere).unwrap();
    let mut reader = CgroupRdmaReader::new(&tmp.path().join("proc"), &tmp.path().join("sys"));
    assert_eq!(reader.for_process(100), None, "read: the mount named there");
    let padding = "99 24 0:99 / /mnt/x rw - tmpfs tmpfs rw\n".repeat(230_000); // 9 MB
    fs::write(&mountinfo, format!("{elsewhere}{padding}")).unwrap();
    let mut reader = CgroupRdmaReader::new(&tmp.path().join("proc"), &tmp.path().join("sys"));
    assert!(reader.for_process(100).is_some(), "refused: /sys/fs/cgroup");
}

fn write(dir: &Path, max: &str, current: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(dir.join("rdma.max"), max).unwrap();
    fs::write(dir.join("rdma.current"), current).unwrap();
}

/// A fake /proc and /sys: pod `/kubepods/pod1` limits mlx5_0 objects to
/// 2000, its container limits contexts to 4; mlx5_1 is unlimited.
fn tree() -> (tempfile::TempDir, CgroupRdmaReader) {
    let tmp = tempfile::tempdir().unwrap();
    let proc_root = tmp.path().join("proc");
    let sys_root = tmp.path().join("sys");
    let cg = sys_root.join("fs/cgroup");
    fs::create_dir_all(proc_root.join("100")).unwrap();
    fs::write(proc_root.join("100/cgroup"), "0::/kubepods/pod1/c1\n").unwrap();
    fs::create_dir_all(proc_root.join("200")).unwrap();
    fs::write(proc_root.join("200/cgroup"), "0::/system.slice/x.service\n").unwrap();
    write(
        &cg.join("kubepods/pod1/c1"),
        "mlx5_0 hca_handle=4 hca_object=max\nmlx5_1 hca_handle=max hca_object=max\n",
        "mlx5_0 hca_handle=1 hca_object=1500\nmlx5_1 hca_handle=1 hca_object=3\n",
    );
    write(
        &cg.join("kubepods/pod1"),
        "mlx5_0 hca_handle=max hca_object=2000\nmlx5_1 hca_handle=max hca_object=max\n",
        "mlx5_0 hca_handle=2 hca_object=1990\nmlx5_1 hca_handle=1 hca_object=3\n",
    );
    write(
        &cg.join("kubepods"),
        "mlx5_0 hca_handle=max hca_object=max\n",
        "mlx5_0 hca_handle=2 hca_object=1990\n",
    );
    write(
        &cg.join("system.slice/x.service"),
        "mlx5_0 hca_handle=max hca_object=max\n",
        "mlx5_0 hca_handle=1 hca_object=9\n",
    );
    let reader = CgroupRdmaReader::new(&proc_root, &sys_root);
    (tmp, reader)
}

#[test]
fn the_binding_quota_is_found_up_the_tree() {
    let (_tmp, mut reader) = tree();
    let c = reader.for_process(100).unwrap();
    assert_eq!(c.path, "/kubepods/pod1/c1");
    assert_eq!(c.devices.len(), 1, "mlx5_1 has no limit anywhere");
    let q = &c.devices["mlx5_0"];
    assert_eq!(
        q.hca_handle,
        Quota {
            current: 1,
            max: Some(4),
            cgroup: "/kubepods/pod1/c1".into()
        }
    );
    assert_eq!(
        q.hca_object,
        Quota {
            current: 1990,
            max: Some(2000),
            cgroup: "/kubepods/pod1".into()
        }
    );
}

#[test]
fn no_limit_and_no_controller_mean_no_quota() {
    let (_tmp, mut reader) = tree();
    assert_eq!(reader.for_process(200), None);
    assert_eq!(reader.for_process(999), None, "no such process");
}

#[test]
fn the_least_headroom_wins_over_the_nearest() {
    let level = |path: &str, max: u64, current: u64| Level {
        path: path.into(),
        max: [(
            "d".to_string(),
            RdmaValues {
                hca_handle: None,
                hca_object: Some(max),
            },
        )]
        .into_iter()
        .collect(),
        current: [(
            "d".to_string(),
            RdmaValues {
                hca_handle: Some(0),
                hca_object: Some(current),
            },
        )]
        .into_iter()
        .collect(),
    };
    let c = binding_quotas("/a/b", &[level("/a/b", 100, 10), level("/a", 50, 45)]).unwrap();
    assert_eq!(c.devices["d"].hca_object.cgroup, "/a");
    assert_eq!(c.devices["d"].hca_handle.max, None);
}
