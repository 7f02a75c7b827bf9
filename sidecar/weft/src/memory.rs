//! The allocator's knobs the daemon turns while it runs (mimalloc is the
//! binary's allocator; see `main.rs`), and the one every run turns at
//! start.

use std::ffi::{c_int, c_long};

/// `mi_option_purge_delay` in mimalloc's `mi_option_t` (the same index in
/// its v2 and v3 headers): how long freed memory waits before it is given
/// back to the system, in milliseconds (1,000 by default in mimalloc 3).
const MI_OPTION_PURGE_DELAY: c_int = 15;

unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    #[cfg(test)]
    fn mi_option_get(option: c_int) -> c_long;
}

/// From now on, memory freed is given back at once. A load frees in bursts
/// and reuses what it freed, which the delay serves (a cold build of 169k
/// notes takes 11 % longer without it); a daemon serving changes afterwards
/// frees what a storm of them allocated on threads that then sleep, and
/// mimalloc carries out delayed purges only as threads allocate again: with
/// the delay, anonymous memory stayed 20–60 % above its level before a
/// `git checkout` of 2,000 notes long after the index had caught up, and
/// the full-text build's writer arenas (about 50 MB) stayed for good.
pub fn purge_at_once() {
    // SAFETY: mi_option_set only stores an option's value; any thread may
    // call it at any time.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
}

/// No transparent huge pages for this process (and the daemon it may
/// start): mimalloc asks for them on its arenas, and the kernel then backs
/// a 2 MiB range that holds a few live pages with a whole huge page, at a
/// fault or later from khugepaged. Without them a cold build in process
/// peaks at 50 instead of 82 MiB for 15k notes and 295 instead of 311 MiB
/// for 169k, in the same time; an idle daemon started without the
/// `MIMALLOC_ARENA_EAGER_COMMIT=0` the faces give it stayed at 12 MiB
/// where it grew to 30 as khugepaged filled its ranges.
#[cfg(target_os = "linux")]
pub fn no_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE only sets a flag of this process; the
    // unused arguments must be zero.
    unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_are_turned_off() {
        no_huge_pages();
        // SAFETY: reading this process's flag.
        assert_eq!(
            unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) },
            1
        );
    }

    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        // SAFETY: reading and storing an option's value.
        let before = unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(before, 1000, "mimalloc's default purge delay");
        }
        purge_at_once();
        assert_eq!(unsafe { mi_option_get(MI_OPTION_PURGE_DELAY) }, 0);
    }
}
