use super::*;

#[test]
fn a_service_holding_a_callable_is_a_callable_argument() {
    let registry = crate::Registry::new();
    let double = Callable::new("Closure", |v| match v.first() {
        Some(Value::Int(n)) => Ok(Value::Int(n * 2)),
        _ => Ok(Value::Null),
    });
    let args = Args::new(
        vec![
            Value::Service(Instance::from_value(double)),
            Value::Service(Instance::from_value(5_i64)),
        ],
        &registry,
    );
    let f = args.callable(0).expect("a Closure service is callable");
    assert_eq!(f.call(vec![Value::Int(4)]).unwrap(), Value::Int(8));
    let err = args.callable(1).expect_err("another service is not");
    assert_eq!(err.expected, "callable");
}

#[test]
fn an_instance_is_a_fat_pointer_and_one_more() {
    // The creation path moves instances through several calls: keep them small.
    assert_eq!(
        std::mem::size_of::<Instance>(),
        3 * std::mem::size_of::<usize>()
    );
    let i = Instance::from_value(7_u32);
    assert_eq!(i.type_id(), TypeId::of::<u32>());
    assert_eq!(i.type_name(), "u32");
    assert_eq!(i.identity_arc::<u32>().as_deref(), Some(&7));
    assert!(i.identity_arc::<u64>().is_none());
}

#[test]
fn the_identity_cast_shares_the_object_and_counts_one_reference() {
    let object = Arc::new(String::from("ada"));
    let i = Instance::new(object.clone());
    assert_eq!(Arc::strong_count(&object), 2);
    let same = i.identity_arc::<String>().expect("the concrete type");
    assert!(Arc::ptr_eq(&same, &object));
    assert_eq!(Arc::strong_count(&object), 3);
    // An unsized request (a trait object) is never the concrete type.
    assert!(i.identity_arc::<dyn fmt::Debug>().is_none());
    drop(same);
    drop(i);
    assert_eq!(Arc::strong_count(&object), 1);
    // A zero-sized concrete type too (its `Arc` still has a real allocation).
    #[derive(Debug, PartialEq)]
    struct Marker;
    let z = Instance::from_value(Marker);
    assert_eq!(z.identity_arc::<Marker>().as_deref(), Some(&Marker));
}

#[test]
fn compiled_arguments_borrow_services_and_answer_like_owned_ones() {
    let registry = crate::Registry::new();
    let db = Instance::from_value(String::from("db"));
    let three = Value::Int(3);
    let new = Instance::from_value(9_u8);
    let items = [
        ArgValue::Cached(&db),
        ArgValue::Own(Box::new(Value::Null)),
        ArgValue::Plain(&three),
        ArgValue::New(new.clone()),
    ];
    let args = Args::compiled(&items, &registry);
    let owned = Args::new(
        vec![
            Value::Service(db.clone()),
            Value::Null,
            Value::Int(3),
            Value::Service(new.clone()),
        ],
        &registry,
    );
    // A borrowed service is handed out without a reference of the container's own.
    let before = Arc::strong_count(db.as_any());
    let got = args.service::<String>(0).expect("the service");
    assert_eq!(got.as_str(), "db");
    assert_eq!(Arc::strong_count(db.as_any()), before + 1);
    drop(got);
    assert!(args.instance(0).expect("an instance").ptr_eq(&db));
    assert!(!args.is_null(0));
    assert!(args.is_null(1));
    assert_eq!(args.opt_service::<String>(1).expect("null"), None);
    assert_eq!(args.int(2), Ok(3));
    assert!(!args.is_null(2) && !args.is_null(3));
    assert_eq!(args.service::<u8>(3).as_deref(), Ok(&9));
    assert_eq!(args.len(), 4);
    assert!(!args.is_empty());
    // Every other accessor sees the same values as with owned arguments.
    assert_eq!(args.values(), owned.values());
    assert_eq!(args.value(0), owned.value(0));
    assert_eq!(args.str(0), owned.str(0));
    assert_eq!(args.int(5), owned.int(5));
    assert_eq!(
        args.service::<u8>(0).expect_err("not a u8"),
        owned.service::<u8>(0).expect_err("not a u8")
    );
    assert_eq!(format!("{args:?}"), format!("{owned:?}"));
}
