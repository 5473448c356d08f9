//! A process that began to stop (`remove_unfinished_files`, called by `wireplan compile`'s
//! signal handlers) puts no file in place any more: a write about to rename fails with
//! `Interrupted` and leaves its target and folder as they were. Its own test binary: the
//! stop is for the whole process.

use wireplan_runtime::encoding::{files_put_in_place, remove_unfinished_files, write_atomic};

#[test]
fn no_file_goes_into_place_once_the_process_is_stopping() {
    let dir = std::env::temp_dir().join(format!("wireplan-stopping-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("folder");
    let target = dir.join("app.plan.json");
    assert_eq!(files_put_in_place(), 0);
    write_atomic(&target, b"first\n").expect("written");
    assert_eq!(files_put_in_place(), 1);

    assert_eq!(remove_unfinished_files(), 0, "no write was under way");
    let refused = write_atomic(&target, b"second\n").expect_err("refused");
    assert_eq!(refused.kind(), std::io::ErrorKind::Interrupted);
    assert_eq!(std::fs::read(&target).expect("target"), b"first\n");
    assert_eq!(files_put_in_place(), 1);
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["app.plan.json"], "no temporary file is left");
    std::fs::remove_dir_all(&dir).expect("clean up");
}
