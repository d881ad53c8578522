//! A small disk for one command: a tmpfs of a given size mounted in a user and mount namespace
//! of the command's own (`unshare`), so a test can fill a folder up (ENOSPC) without root and
//! without touching the machine's disks. The tmpfs vanishes with the command, so its contents
//! are copied out when the command ends.

use std::path::Path;
use std::process::Command;

/// Mounts a tmpfs of `$1` KiB on `$2`, copies `$3`'s contents in (an earlier run's files),
/// runs the rest of the arguments, copies what the folder then holds to `$4`, and exits as
/// the command did (97 when the mount fails).
const SCRIPT: &str = r#"size=$1 at=$2 seed=$3 after=$4; shift 4
mount -t tmpfs -o size="${size}k" tmpfs "$at" || exit 97
cp -a "$seed/." "$at/" || exit 98
"$@"; rc=$?
cp -a "$at/." "$after/"
exit $rc"#;

/// Fails the test, saying what to do, when this machine does not let it mount a tmpfs in
/// namespaces of its own (never passes unrun).
pub fn require() {
    assert!(
        available(),
        "this machine does not allow a tmpfs in a user namespace (unshare --user --mount): \
         run `bash scripts/setup` (it lifts Ubuntu's AppArmor restriction) or enable \
         unprivileged user namespaces"
    );
}

/// Whether this machine lets a test mount a tmpfs in namespaces of its own.
pub fn available() -> bool {
    Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "sh", "-c"])
        .arg("d=$(mktemp -d) && mount -t tmpfs -o size=4k tmpfs \"$d\"")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A command that runs `program` (arguments to be added) with a `kib` KiB disk mounted on
/// `at` (an existing folder), seeded from `seed`, its final contents copied to `after`.
pub fn command(kib: u64, at: &Path, seed: &Path, after: &Path, program: &str) -> Command {
    let mut c = Command::new("unshare");
    c.args([
        "--user",
        "--map-root-user",
        "--mount",
        "sh",
        "-c",
        SCRIPT,
        "sh",
    ])
    .arg(kib.to_string())
    .arg(at)
    .arg(seed)
    .arg(after)
    .arg(program);
    c
}
