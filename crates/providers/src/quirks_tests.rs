//! Tests of quirk flags.

use pretty_assertions::assert_eq;

use super::QuirkFlag;
use super::Quirks;
use super::UnknownQuirk;

#[test]
fn every_flag_round_trips_through_its_name_and_the_struct() {
    for flag in QuirkFlag::ALL {
        assert_eq!(QuirkFlag::from_name(flag.name()), Ok(flag));
        let quirks = Quirks::default().with(flag);
        assert!(quirks.has(flag), "{flag:?}");
        assert_eq!(quirks.flags(), vec![flag]);
    }
    let all = Quirks::from_flags(&QuirkFlag::ALL);
    assert_eq!(all.flags(), QuirkFlag::ALL.to_vec());
}

#[test]
fn default_has_no_flags_and_unknown_names_are_errors() {
    assert_eq!(Quirks::default().flags(), vec![]);
    assert_eq!(
        QuirkFlag::from_name("noStreamOption"),
        Err(UnknownQuirk("noStreamOption".to_owned()))
    );
}

/// A connection saved by an earlier version with a retired name reads the same as without it;
/// an unknown name is still refused.
#[test]
fn retired_names_are_dropped_when_read() {
    assert_eq!(
        Quirks::from_names(&["noStreamOptions", "toolCallsOnStop"]),
        Ok(Quirks::default().with(QuirkFlag::NoStreamOptions))
    );
    assert_eq!(Quirks::from_names(&["nope"]), Err(UnknownQuirk("nope".to_owned())));
    assert_eq!(
        QuirkFlag::from_name("toolCallsOnStop"),
        Err(UnknownQuirk("toolCallsOnStop".to_owned()))
    );
}
