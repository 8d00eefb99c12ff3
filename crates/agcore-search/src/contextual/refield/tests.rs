//! Tests of [`Refields`](super::Refields).

use super::*;

fn member(doc: u8, own: &str, stored: Option<&str>) -> RunMember<u8, String> {
    RunMember {
        doc,
        own: own.to_owned(),
        len: 1,
        stored: stored.map(|s| (s.to_owned(), i64::from(!s.is_empty()))),
    }
}

#[test]
fn written_and_joining_members_always_stored_ones_when_changed() {
    let fresh = Written {
        doc: 0,
        terms: " a ".to_owned(),
        len: 1,
        grouped: true,
        stored: Some((" b ".to_owned(), 1)),
    };
    let mut step = Refields::new(1, [fresh]);
    let run = [
        member(0, " a ", Some(" b ")),
        member(1, " b ", Some(" a ")),
        member(2, " c ", None),
    ];
    let out = step.run(&run, 0, 0);
    let docs: Vec<(u8, bool)> = out.iter().map(|r| (r.doc, r.old.is_some())).collect();
    assert_eq!(docs, [(0, false), (1, true), (2, false)], "2 joins");
    assert!(!out[0].write, "its stored field is the derived one");
    assert_eq!((out[1].field.as_str(), out[1].delta), (" a  c ", 1));
    assert_eq!((out[2].field.as_str(), out[2].write), (" b ", true));
    assert!(step.rest().is_empty());
}

#[test]
fn written_documents_nothing_held_get_an_empty_field_in_order() {
    let lone = |doc, stored: &str| Written {
        doc,
        terms: " x ".to_owned(),
        len: 1,
        grouped: false,
        stored: Some((stored.to_owned(), 0)),
    };
    let step = Refields::new(2, [lone(9, " w "), lone(7, ""), lone(8, "")]);
    let rest = step.rest();
    let got: Vec<(u8, bool, i64)> = rest.iter().map(|r| (r.doc, r.write, r.len)).collect();
    assert_eq!(got, [(9, true, 0), (7, false, 0), (8, false, 0)]);
    assert!(rest.iter().all(|r| r.field.is_empty() && r.old.is_none()));
}

#[test]
fn targets_take_their_neighbours_terms_as_written_or_stored() {
    let tf = |pairs: &[(&str, i32)]| -> BTreeMap<String, i32> {
        pairs.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect()
    };
    let target = |context_len, neighbours: &[(u8, i64)]| Target {
        len: 1,
        context_len,
        neighbours: neighbours.to_vec(),
    };
    let found = Neighbourhood {
        // 1 and 2 neighbour each other; 3 is written, its neighbour is 1.
        targets: BTreeMap::from([
            (1, target(1, &[(2, 1)])),
            (2, target(1, &[(1, 1)])),
            (3, target(0, &[(1, 1)])),
        ]),
        own: HashMap::from([(1, tf(&[("a", 1)])), (2, tf(&[("b", 1)]))]),
        fields: HashMap::from([(1, tf(&[("b", 1)])), (2, tf(&[("x", 1)]))]),
    };
    let written = Written {
        doc: 3,
        terms: tf(&[("c", 1)]),
        len: 1,
        grouped: true,
        stored: None,
    };
    let mut step = Refields::new(1, [written]);
    let out = step.neighbourhood(found);
    let docs: Vec<(u8, bool)> = out.iter().map(|r| (r.doc, r.old.is_some())).collect();
    assert_eq!(docs, [(2, true), (3, false)], "1's field is unchanged");
    assert_eq!(out[0].field, tf(&[("a", 1)]));
    assert_eq!(out[0].own, tf(&[("b", 1)]));
    assert_eq!((out[1].own.clone(), out[1].delta), (tf(&[("c", 1)]), 1));
    assert!(step.rest().is_empty());
}
