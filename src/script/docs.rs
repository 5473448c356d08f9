//! The reference of the scripted API: one entry per registered function or property, with
//! a description and an example. `docs/scripting-api.md` is generated from these entries and
//! the engine's own registrations (`tests/scripting_docs.rs` checks that every registered
//! function is documented, that the file is current, and runs every example).

use rhai::Engine;

/// When an example runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// Inside `loadConfiguration()`.
    Load,
    /// Inside `beforeCompile()`.
    Before,
    /// Inside `afterCompile(plan)`.
    After,
}

/// Documentation of one function or property.
#[derive(Debug, Clone, Copy)]
pub struct ApiDoc {
    /// The script-visible name (properties without `get$`).
    pub name: &'static str,
    /// The type it is called on (`Extension`, `ContainerBuilder`, …), or `global`.
    pub on: &'static str,
    /// What it does, including errors and which Nette behaviour it follows.
    pub text: &'static str,
    /// A runnable example; `ok(cond)` fails the example when `cond` is false.
    pub example: &'static str,
    /// The lifecycle function the example runs in.
    pub hook: Hook,
}

macro_rules! doc {
    ($on:literal, $name:literal, $hook:ident, $text:literal, $example:literal) => {
        ApiDoc {
            name: $name,
            on: $on,
            text: $text,
            example: $example,
            hook: Hook::$hook,
        }
    };
}

/// Every documented function, grouped by the type it is called on.
pub const API: &[ApiDoc] = &[
    doc!("Extension", "name", Before, "The name the extension is registered under (its key in `extensions:`).", r#"ok(this.name == "demo");"#),
    doc!("Extension", "config", Load, "The extension's configuration section as an ordered map (`this.config.level`, `this.config[\"level\"]`; a missing key reads as `()`; a key named like a Rhai keyword, such as a Nette configuration's `default:` connection, is read with brackets, `this.config[\"default\"]`, and written quoted in a map, `#{ \"default\": … }`). Assignable. Each read copies the whole section: in a loop over a large section, read it once (`let cfg = this.config; for k in cfg.keys() { … cfg[k] … }`), or each pass copies it again and a section of thousands of entries runs into the sandbox's allocation ceiling.", r#"ok(this.config.level == 5); ok(this.config.keys() == ["level", "names"]);"#),
    doc!("Extension", "getConfig", Load, "Same as `this.config` (Nette's getter).", r#"ok(this.getConfig().names == ["a", "b"]);"#),
    doc!("Extension", "args", Load, "The arguments written after the script path: `demo: ext.rhai(%debugMode%)` (with a parameter `debugMode` declared under `parameters:`).", r#"ok(this.args == []);"#),
    doc!("Extension", "prefix", Load, "`prefix(\"x\")` is `\"<name>.x\"`; `prefix(\"@x\")` is `\"@<name>.x\"` (Nette's `prefix`).", r#"ok(this.prefix("x") == "demo.x"); ok(this.prefix("@x") == "@demo.x");"#),
    doc!("Extension", "getContainerBuilder", Before, "The shared `ContainerBuilder`.", r#"ok(this.getContainerBuilder().hasDefinition("db"));"#),
    doc!("Extension", "loadDefinitionsFromConfig", Load, "Loads a map shaped like a `services:` section: names get the extension prefix, `@extension.x` becomes `@<name>.x`, `%parameters%` are expanded. Errors are raised at the calling line.", r#"this.loadDefinitionsFromConfig(#{ cache: #{ create: "App\\Db", autowired: false } }); ok(this.getContainerBuilder().hasDefinition("demo.cache"));"#),
    doc!("Extension", "loadFromFile", Load, "Reads a NEON file relative to the script, inside the project, and registers it as a dependency of the plan. The project is the current folder when the root configuration is inside it, else the configuration's folder, and never more than the outermost folder above the configuration that holds a `Cargo.toml` or `.git` (a workspace's root; never the file system's root or the home folder). A path outside the project is refused (`script-error`), whether or not the file exists there; a missing file inside it is `file-not-found`.", r#"let defs = this.loadFromFile("data.neon"); ok(defs.keys() == ["extra"]);"#),
    doc!("Extension", "addDependency", Load, "Registers a file (inside the project) so dev mode rebuilds when it changes.", r#"this.addDependency("data.neon");"#),
    doc!("Extension", "warn", Load, "Reports an `extension-warning` diagnostic at the calling line; the compilation goes on.", r#"if false { this.warn("never shown"); }"#),
    doc!("Extension", "compiler", Load, "The compiler: `getExtensions`, `addExportedTag`, `addExportedType`.", r#"ok(this.compiler.getExtensions().keys() == ["demo"]);"#),
    doc!("Extension", "types", Load, "Queries on the type catalog: `exists`, `isInterface`, `isAbstract`, `isSubclassOf`, `classes`, `implementationsOf`, `methods`, `constructor`.", r#"ok(this.types.exists("App\\Db"));"#),
    doc!("Extension", "initialization", Load, "Statements run by `Container::initialize()`: `addBody(\"@service::method()\")` (a NEON statement; Nette's `$initialization->addBody`).", r#"this.initialization.addBody("@repo::setLevel(1)");"#),
    doc!("Compiler", "getExtensions", Load, "Registered extensions as name → script path; with an argument, only those whose script file name without `.rhai` is that (`getExtensions(\"logaware\")`).", r#"ok(this.compiler.getExtensions("ext").len() == 1);"#),
    doc!("Compiler", "addExportedTag", Load, "Keeps a tag in the plan when `di › export › tags` is a list (Nette's `Compiler::addExportedTag`).", r#"this.compiler.addExportedTag("repository");"#),
    doc!("Compiler", "addExportedType", Load, "Keeps a type in the plan's autowiring index when `di › export › types` is a list. A type the catalog does not know is `class-not-found` (with \"did you mean\").", r#"this.compiler.addExportedType("App\\Db");"#),
    doc!("Initialization", "addBody", Load, "Appends a NEON statement to the container's initialization; parameters are expanded. In `loadConfiguration()` or `beforeCompile()`: where Nette's `afterCompile()` adds to `initialize()`, an `afterCompile(plan)` here appends to the plan's `initialization` list (`plan.set([\"initialization\"], …)`); `addBody()` there is refused, as every builder change is.", r#"this.initialization.addBody("@repo::setLevel(%level%)");"#),
    doc!("Types", "exists", Load, "Is the class or interface in the catalog?", r#"ok(!this.types.exists("App\\Nope"));"#),
    doc!("Types", "isInterface", Load, "Is it an interface?", r#"ok(this.types.isInterface("App\\Logger"));"#),
    doc!("Types", "isAbstract", Load, "Is it an abstract class?", r#"ok(!this.types.isAbstract("App\\Db"));"#),
    doc!("Types", "isSubclassOf", Load, "Is the first type the second or a subtype of it?", r#"ok(this.types.isSubclassOf("App\\FileLogger", "App\\Logger"));"#),
    doc!("Types", "classes", Load, "Every catalog name, in declaration order.", r#"ok(this.types.classes()[0] == "App\\Db");"#),
    doc!("Types", "implementationsOf", Load, "Instantiable classes that are the type or a subtype of it.", r#"ok(this.types.implementationsOf("App\\Logger") == ["App\\FileLogger"]);"#),
    doc!("Types", "methods", Load, "Method names of a class, own and inherited.", r#"ok(this.types.methods("App\\Repo") == ["setLevel"]);"#),
    doc!("Types", "constructor", Load, "Constructor parameters as name → type, in order.", r#"ok(this.types.constructor("App\\Repo").db == "App\\Db");"#),
    doc!("ContainerBuilder", "addDefinition", Load, "Adds a service definition; without a name (or with `()`) it is anonymous (`01`, `02`, …). Errors: `duplicate-service` (also for names differing only in case), `invalid-definition` for a bad name.", r#"let d = this.getContainerBuilder().addDefinition("demo.db2").setFactory("App\\Db").setAutowired(false); ok(d.name == "demo.db2");"#),
    doc!("ContainerBuilder", "addFactoryDefinition", Load, "Adds a generated factory; set its interface with `setImplement` and its result with `getResultDefinition()`.", r#"this.getContainerBuilder().addFactoryDefinition("demo.repos").setImplement("App\\RepoFactory");"#),
    doc!("ContainerBuilder", "addAccessorDefinition", Load, "Adds a generated accessor (`get()` returns a service).", r#"this.getContainerBuilder().addAccessorDefinition("demo.dbs").setImplement("App\\DbAccessor");"#),
    doc!("ContainerBuilder", "addLocatorDefinition", Load, "Adds a locator (`get(name)` returns one of several services).", r#"this.getContainerBuilder().addLocatorDefinition("demo.repos").setImplement("App\\Repos").setTagged("repository");"#),
    doc!("ContainerBuilder", "addImportedDefinition", Load, "Adds a service the application supplies when it loads the plan.", r#"this.getContainerBuilder().addImportedDefinition("demo.request").setType("App\\Db").setAutowired(false);"#),
    doc!("ContainerBuilder", "addSlotDefinition", Load, "Adds a scope slot: a scoped service the application provides in each scope (`scope.provide`).", r#"this.getContainerBuilder().addSlotDefinition("demo.user").setType("App\\Db").setAutowired(false);"#),
    doc!("ContainerBuilder", "removeDefinition", Load, "Removes a definition; silent when it does not exist.", r#"this.getContainerBuilder().removeDefinition("nope");"#),
    doc!("ContainerBuilder", "addAlias", Before, "Adds an alias for a service. Error: `duplicate-service` when the name is taken.", r#"let b = this.getContainerBuilder(); b.addAlias("database", "db"); ok(b.getDefinition("database").name == "db");"#),
    doc!("ContainerBuilder", "removeAlias", Before, "Removes an alias.", r#"let b = this.getContainerBuilder(); b.addAlias("x", "db"); b.removeAlias("x"); ok(!b.hasDefinition("x"));"#),
    doc!("ContainerBuilder", "getAliases", Load, "Aliases as alias → service name.", r#"ok(this.getContainerBuilder().getAliases().len() == 0);"#),
    doc!("ContainerBuilder", "getDefinition", Before, "The definition of a service (aliases followed). Error: `missing-service` with a \"did you mean\".", r#"ok(this.getContainerBuilder().getDefinition("repo").getType() == "App\\Repo");"#),
    doc!("ContainerBuilder", "hasDefinition", Load, "Is there a service (or alias) of that name?", r#"ok(!this.getContainerBuilder().hasDefinition("nope"));"#),
    doc!("ContainerBuilder", "getDefinitions", Before, "Every definition as name → definition, in definition order.", r#"ok(this.getContainerBuilder().getDefinitions().keys() == ["db", "log", "repo"]);"#),
    doc!("ContainerBuilder", "findByTag", Before, "Services carrying a tag, as name → tag value, in definition order; works in every phase.", r#"ok(this.getContainerBuilder().findByTag("logger").log == "main");"#),
    doc!("ContainerBuilder", "getByType", Before, "The name of the single preferred autowired service of a type, or `()`; `getByType(type, true)` raises `missing-service` instead. Several candidates raise `ambiguous-service`; while types are resolved it raises `not-allowed-during-resolving`; in `loadConfiguration()` it warns (`partial-graph`).", r#"let b = this.getContainerBuilder(); ok(b.getByType("App\\Logger") == "log"); ok(b.getByType("App\\Repos") == ());"#),
    doc!("ContainerBuilder", "getDefinitionByType", Before, "The definition `getByType(type, true)` names.", r#"ok(this.getContainerBuilder().getDefinitionByType("App\\Db").name == "db");"#),
    doc!("ContainerBuilder", "findByType", Before, "Every definition whose type is the type or a subtype, ignoring autowiring, as name → definition.", r#"ok(this.getContainerBuilder().findByType("App\\Logger").keys() == ["log"]);"#),
    doc!("ContainerBuilder", "getParameters", Load, "The expanded parameters. A dynamic one (`%env.X%`, `--dynamic`) is a `DynamicParameter`, known only when the container starts: pass it on as it is, or join it with `+` (`\"dsn=\" + p.port` is joined at start-up, `$concat` in the plan); its text (`to_string`, `${…}` interpolation) is only `%env.X%`, and a string holding that text is refused (`invalid-value`) where it would become a value.", r#"ok(this.getContainerBuilder().getParameters().level == 3);"#),
    doc!("Definition", "setFactory", Load, "Sets the creator: a class, `Class::method`, `@service`, `@service::method`, or a `Statement`, with arguments (array: positional, map: named). `@service` as creator turns autowiring off, as in Nette. Errors about the creator (an unknown class, arguments that do not fit) point at this call, with the service's own definition as a second label.", r#"this.getContainerBuilder().addDefinition("demo.r").setFactory("App\\Repo", ["@db"]);"#),
    doc!("Definition", "setCreator", Load, "Same as `setFactory` (Nette 3 name).", r#"this.getContainerBuilder().addDefinition("demo.r").setCreator(Statement("App\\Repo"));"#),
    doc!("Definition", "setType", Load, "Declares the service type (also the result type of a factory).", r#"this.getContainerBuilder().addDefinition("demo.r").setType("App\\Repo");"#),
    doc!("Definition", "setArguments", Load, "Replaces the creator's arguments; errors about them point at this call.", r#"this.getContainerBuilder().addDefinition("demo.r").setFactory("App\\Repo").setArguments(#{db: "@db"});"#),
    doc!("Definition", "setArgument", Load, "Sets one argument by position or name; errors about the creator's arguments point at this call.", r#"this.getContainerBuilder().addDefinition("demo.r").setFactory("App\\Repo").setArgument("db", Reference("db"));"#),
    doc!("Definition", "addSetup", Before, "Appends a setup: a method of the service (`\"setLevel\"`), `@other::method`, `Class::method`, or a property write, `\"$level\"` with exactly one value (`addSetup(\"$level\", [2])`).", r#"this.getContainerBuilder().getDefinition("repo").addSetup("setLevel", [this.config.level]);"#),
    doc!("Definition", "setSetup", Load, "Replaces the setup list (strings, `Statement`s, or `#{\"$prop\": value}` maps).", r#"this.getContainerBuilder().addDefinition("demo.r").setFactory("App\\Repo").setSetup([Statement("setLevel", [2])]);"#),
    doc!("Definition", "addTag", Before, "Adds a tag (value `true` unless given).", r#"this.getContainerBuilder().getDefinition("db").addTag("primary").addTag("weight", 10);"#),
    doc!("Definition", "setTags", Before, "Replaces the tags: an array of names or a map of name → value.", r#"this.getContainerBuilder().getDefinition("db").setTags(["a", "b"]);"#),
    doc!("Definition", "setAutowired", Load, "`true`, `false`, `\"self\"`, a type, or a list of types (Nette's autowiring rules).", r#"this.getContainerBuilder().addDefinition("demo.d").setFactory("App\\Db").setAutowired(false);"#),
    doc!("Definition", "setInject", Before, "Turns the inject step on: `inject*()` methods and `inject: true` properties are filled.", r#"this.getContainerBuilder().getDefinition("repo").setInject(true);"#),
    doc!("Definition", "setLazy", Before, "Marks the service lazy, as in Nette. The plan does not record it: the runtime creates every service on first use anyway.", r#"this.getContainerBuilder().getDefinition("repo").setLazy(true);"#),
    doc!("Definition", "setLifespan", Before, "`singleton` (default), `scoped` or `transient` (Clean IoC 2's lifespans; captive dependencies are compile errors).", r#"this.getContainerBuilder().getDefinition("log").setLifespan("singleton");"#),
    doc!("Definition", "setImplement", Load, "The interface a factory, accessor or locator implements.", r#"this.getContainerBuilder().addAccessorDefinition("demo.a").setImplement("App\\DbAccessor").setReference("db");"#),
    doc!("Definition", "setReference", Load, "For an accessor: the service `get()` returns.", r#"this.getContainerBuilder().addAccessorDefinition("demo.a").setImplement("App\\DbAccessor").setReference("@db");"#),
    doc!("Definition", "setReferences", Load, "For a locator: name → `@service` or type.", r#"this.getContainerBuilder().addLocatorDefinition("demo.l").setImplement("App\\Repos").setReferences(#{main: "@repo"});"#),
    doc!("Definition", "setTagged", Load, "For a locator: the tag whose values name its services.", r#"this.getContainerBuilder().addLocatorDefinition("demo.l").setImplement("App\\Repos").setTagged("repository");"#),
    doc!("Definition", "getResultDefinition", Load, "For a factory: the definition of what `create()` returns (the same handle in wireplan).", r#"this.getContainerBuilder().addFactoryDefinition("demo.f").setImplement("App\\RepoFactory").getResultDefinition().setFactory("App\\Repo");"#),
    doc!("Definition", "name", Before, "The service name.", r#"ok(this.getContainerBuilder().getDefinition("db").name == "db");"#),
    doc!("Definition", "getName", Before, "The service name (Nette's getter).", r#"ok(this.getContainerBuilder().getDefinition("db").getName() == "db");"#),
    doc!("Definition", "getType", Before, "The resolved (or declared) type, or `()`.", r#"ok(this.getContainerBuilder().getDefinition("log").getType() == "App\\FileLogger");"#),
    doc!("Definition", "getTag", Before, "A tag's value, or `()`.", r#"ok(this.getContainerBuilder().getDefinition("log").getTag("logger") == "main");"#),
    doc!("Definition", "getTags", Before, "All tags as name → value, in order.", r#"ok(this.getContainerBuilder().getDefinition("repo").getTags().keys() == ["repository"]);"#),
    doc!("Definition", "getSetup", Before, "The setup statements.", r#"ok(this.getContainerBuilder().getDefinition("repo").getSetup() == []);"#),
    doc!("Definition", "getFactory", Before, "The creator as a `Statement`, or `()`.", r#"ok(this.getContainerBuilder().getDefinition("db").getFactory().to_string() == "App\\Db(...)");"#),
    doc!("Definition", "getCreator", Before, "Same as `getFactory`.", r#"ok(type_of(this.getContainerBuilder().getDefinition("db").getCreator()) == "Statement");"#),
    doc!("Definition", "getArguments", Before, "The creator's arguments.", r#"ok(this.getContainerBuilder().getDefinition("db").getArguments() == []);"#),
    doc!("Definition", "getAutowired", Before, "`true`, `false` or the list of types.", r#"ok(this.getContainerBuilder().getDefinition("db").getAutowired() == true);"#),
    doc!("Definition", "getImplement", Before, "The implemented interface of a generated service, or `()`.", r#"ok(this.getContainerBuilder().getDefinition("db").getImplement() == ());"#),
    doc!("Definition", "isInject", Before, "Is the inject step on?", r#"ok(!this.getContainerBuilder().getDefinition("db").isInject());"#),
    doc!("Definition", "isLazy", Before, "Is it marked lazy?", r#"ok(!this.getContainerBuilder().getDefinition("db").isLazy());"#),
    doc!("Definition", "getLifespan", Before, "`singleton`, `scoped` or `transient`.", r#"ok(this.getContainerBuilder().getDefinition("db").getLifespan() == "singleton");"#),
    doc!("Definition", "getKind", Before, "`service`, `factory`, `accessor`, `locator`, `imported` or `slot`.", r#"ok(this.getContainerBuilder().getDefinition("db").getKind() == "service");"#),
    doc!("global", "Statement", Load, "A statement for complex arguments: `Statement(\"App\\\\Foo\", [args])`, `Statement(\"@db::connect\")`; with the sole argument `\"...\"` a first-class callable (`Statement(\"@db::query\", [\"...\"])`, Nette's `@db::query(...)`). In arguments, the string `\"@db::dsn\"` reads a property.", r#"let s = Statement("App\\Repo", ["@db"]); ok(type_of(s) == "Statement");"#),
    doc!("global", "Reference", Load, "A reference to a service, same as the string `\"@name\"`.", r#"ok(Reference("db").to_string() == "@db");"#),
    doc!("DynamicParameter", "+", Load, "Joins a dynamic parameter and text (or two dynamic parameters) when the container starts: `\"redis://cache:\" + p.port` is a `DynamicParameter` too, `{\"$concat\": [\"redis://cache:\", {\"$param\": \"env.PORT\"}]}` in the plan.", r#"let p = this.getContainerBuilder().getParameters(); ok(type_of("db:" + p.port) == "DynamicParameter");"#),
    doc!("global", "OrderedMap", Load, "A new, empty ordered map.", r#"let m = OrderedMap(); m["b"] = 1; m["a"] = 2; ok(m.keys() == ["b", "a"]);"#),
    doc!("OrderedMap", "keys", Load, "Keys in insertion order.", r#"ok(this.config.keys()[0] == "level");"#),
    doc!("OrderedMap", "values", Load, "Values in insertion order.", r#"ok(this.config.values()[0] == 5);"#),
    doc!("OrderedMap", "len", Load, "Number of entries.", r#"ok(this.config.len() == 2);"#),
    doc!("OrderedMap", "contains", Load, "Is the key present?", r#"ok(this.config.contains("names"));"#),
    doc!("OrderedMap", "remove", Load, "Removes a key and returns its value (or `()`).", r#"let m = OrderedMap(); m.x = 1; ok(m.remove("x") == 1);"#),
    doc!("OrderedMap", "to_map", Load, "A plain Rhai object map (sorted by key).", r#"ok(this.config.to_map().level == 5);"#),
    doc!("OrderedMap", "tag", Load, "The entry named `tag` (overrides Rhai's built-in `tag` property for ordered maps).", r#"let m = OrderedMap(); m.tag = "x"; ok(m.tag == "x");"#),
    doc!("Expect", "Expect::structure", Load, "A structure with the given items (nette/schema `Expect::structure`); unknown keys are `unknown-option` errors with a \"did you mean\". Build it from an `OrderedMap` to keep the item order (`#{...}` maps are sorted).", r#"let s = Expect::structure(#{ postsPerPage: Expect::int(10) }); ok(type_of(s) == "Expect");"#),
    doc!("Expect", "Expect::int", Load, "An integer; `Expect::int(10)` has the default 10.", r#"ok(Expect::int(10).to_string() == "int");"#),
    doc!("Expect", "Expect::float", Load, "A float (integers are accepted); optional default.", r#"Expect::float(1.5);"#),
    doc!("Expect", "Expect::string", Load, "A string; optional default.", r#"Expect::string("utf-8");"#),
    doc!("Expect", "Expect::bool", Load, "A boolean; optional default.", r#"Expect::bool(true);"#),
    doc!("Expect", "Expect::scalar", Load, "Any scalar; optional default.", r#"Expect::scalar(1);"#),
    doc!("Expect", "Expect::mixed", Load, "Anything; optional default.", r#"Expect::mixed();"#),
    doc!("Expect", "Expect::email", Load, "An e-mail address string.", r#"Expect::email();"#),
    doc!("Expect", "Expect::unicode", Load, "A valid UTF-8 string.", r#"Expect::unicode();"#),
    doc!("Expect", "Expect::list", Load, "A list (keys 0..n); optional default.", r#"Expect::list([1, 2]);"#),
    doc!("Expect", "Expect::array", Load, "Any array (map or list); optional default.", r#"Expect::array();"#),
    doc!("Expect", "Expect::type", Load, "A value of a type expression: `int|string`, `string:1..10`, `int[]`, `null`, a class name.", r#"Expect::type("int|string");"#),
    doc!("Expect", "Expect::arrayOf", Load, "An array whose items (and optionally keys) match schemas. As in nette/schema, each schema may be a type name instead (`\"string\"`, `\"int|null\"`, a class), meaning `Expect::type(name)`.", r#"Expect::arrayOf("int", Expect::string());"#),
    doc!("Expect", "Expect::listOf", Load, "A list whose items match a schema, or a type name (`Expect::listOf(\"string\")`, as nette/schema); a given list replaces a list default.", r#"Expect::listOf("string").defaultValue(["a", "b"]);"#),
    doc!("Expect", "Expect::anyOf", Load, "One of several values or schemas, given as one array or, as in nette/schema, one by one (2 to 8 choices).", r#"Expect::anyOf(["files", "database"]).firstIsDefault(); Expect::anyOf("files", "database", Expect::int());"#),
    doc!("Expect schema", "defaultValue", Load, "The value used when the item is missing (Nette's `->default()`; `default` is a reserved word in Rhai).", r#"Expect::int().defaultValue(3);"#),
    doc!("Expect schema", "required", Load, "The item must be given (`required(false)` undoes it).", r#"Expect::string().required();"#),
    doc!("Expect schema", "nullable", Load, "`null` is accepted too.", r#"Expect::int().nullable();"#),
    doc!("Expect schema", "min", Load, "Lower bound of a number, or of a string's or array's length.", r#"Expect::int().min(1);"#),
    doc!("Expect schema", "max", Load, "Upper bound of a number, or of a string's or array's length.", r#"Expect::string().max(10);"#),
    doc!("Expect schema", "pattern", Load, "A regular expression the whole string must match.", r#"Expect::string().pattern("[a-z]+");"#),
    doc!("Expect schema", "assert", Load, "A closure that must return `true`; otherwise \"Failed assertion ... for item ...\". An optional description names it.", r#"Expect::int().assert(|v| v % 2 == 0, "even");"#),
    doc!("Expect schema", "transform", Load, "A closure that returns the new value, after validation.", r#"Expect::string().transform(|v| v.to_upper());"#),
    doc!("Expect schema", "before", Load, "A closure that normalises the raw value before validation (e.g. a string into a list).", r#"Expect::listOf(Expect::string()).before(|v| if type_of(v) == "string" { [v] } else { v });"#),
    doc!("Expect schema", "castTo", Load, "Converts the value: `int`, `float`, `string`, `bool`, `array`, or a class (a statement); a class the catalog does not know is `class-not-found` at `getConfigSchema()`.", r#"Expect::scalar().castTo("string");"#),
    doc!("Expect schema", "dynamic", Load, "Accepts dynamic parameters (`%env.X%`) without checking them at compile time.", r#"Expect::int().dynamic();"#),
    doc!("Expect schema", "deprecated", Load, "Using the item gives a warning (optional message, `%path%` is the item).", r#"Expect::bool().deprecated("use 'enabled'");"#),
    doc!("Expect schema", "otherItems", Load, "A structure also accepts other keys (matching the schema, or anything).", r#"Expect::structure(#{ a: Expect::int() }).otherItems();"#),
    doc!("Expect schema", "skipDefaults", Load, "A structure leaves out items that equal their defaults.", r#"Expect::structure(#{ a: Expect::int(1) }).skipDefaults();"#),
    doc!("Expect schema", "mergeDefaults", Load, "Merge array defaults with the given value (nette/schema 1.3 behaviour).", r#"Expect::array().defaultValue(["a"]).mergeDefaults();"#),
    doc!("Expect schema", "firstIsDefault", Load, "`anyOf`: the first choice is the default.", r#"Expect::anyOf(["a", "b"]).firstIsDefault();"#),
    doc!("Expect schema", "extend", Load, "A structure with more items.", r#"Expect::structure(#{ a: Expect::int() }).extend(#{ b: Expect::bool() });"#),
    doc!("Diagnostic", "code", Before, "In `try { … } catch (e) { … }`: the kebab-case code of an error the API raised.", r#"try { this.getContainerBuilder().getDefinition("nope"); } catch (e) { ok(e.code == "missing-service"); }"#),
    doc!("Diagnostic", "message", Before, "In `catch (e)`: the error's message.", r#"try { this.getContainerBuilder().getDefinition("nope"); } catch (e) { ok(e.message == "Service 'nope' not found."); }"#),
    doc!("Plan", "get", After, "In `afterCompile(plan)`: the value at a path (an array of keys), or `()`.", r#"ok(plan.get(["services", "db", "type"]) == "App\\Db");"#),
    doc!("Plan", "set", After, "Sets the value at a path, creating maps on the way. The edited plan must stay valid: every reference names a service, every service's `create` constructs its object (not null, a scalar, a list or a map), every class it names (a `$new`, a static call, a service `type`) is in the catalog, every `$new` passes as many arguments as the catalog's constructor takes, no singleton holds a scoped service (directly, through transients or a provider; reported with its path), and no service needs itself to be created (a cycle is reported with its path). The types of the values an edit puts in are not checked against the catalog here: the runtime checks each argument when it creates the service. `types` and `tags` are derived from the services (edit a service's `tags` instead), unknown fields are refused, and the container builder can no longer be changed in `afterCompile()`: the plan is already built. A `Reference(\"db\")` (or a definition) is written as the plan's reference `{\"$ref\": \"db\"}`; a `Statement` or a dynamic parameter is configuration syntax and is refused: the plan writes them `{\"$new\": …}` / `{\"$call\": …}` and `{\"$param\": …}` (docs/plan-format.md). A string is plain text in the plan: `\"@db\"` is not a reference and `\"%x%\"` is not expanded; a string holding a dynamic parameter's text (from `to_string()` or `${…}`) is refused.", r#"plan.set(["services", "db", "tags", "audited"], true);"#),
    doc!("Plan", "remove", After, "Removes the key at a path.", r#"plan.remove(["services", "db", "tags"]);"#),
    doc!("Plan", "serviceNames", After, "Service names in plan order.", r#"ok(plan.serviceNames() == ["db", "log", "repo"]);"#),
];

/// Registered function names that are plumbing rather than API (string conversions).
const PLUMBING: &[&str] = &["to_string", "to_debug"];

/// The registered names of our API, normalised: `get$x`/`set$x` become `x`, indexers `[]`.
pub fn registered_names(engine: &Engine) -> Vec<String> {
    let mut names: Vec<String> = engine
        .gen_fn_signatures(false)
        .iter()
        .filter_map(|s| s.split('(').next())
        .map(|n| {
            n.trim_start_matches("get$")
                .trim_start_matches("set$")
                .to_string()
        })
        .filter(|n| !n.starts_with("index$") && !PLUMBING.contains(&n.as_str()))
        .collect();
    names.sort();
    names.dedup();
    names
}

fn clean(sig: &str) -> String {
    let mut s = sig.to_string();
    for (from, to) in [
        ("core::result::Result<", "Result<"),
        (
            "alloc::boxed::Box<rhai::types::error::EvalAltResult>",
            "Error",
        ),
        (
            "wireplan::script::builder_api::DefinitionHandle",
            "Definition",
        ),
        ("wireplan::script::values::OrderedMap", "OrderedMap"),
        ("wireplan::script::values::ScriptStatement", "Statement"),
        ("wireplan::script::schema_api::ScriptExpect", "Expect"),
        ("wireplan::diagnostics::Diagnostic", "Diagnostic"),
        (
            "wireplan::script::extension_api::CompilerHandle",
            "Compiler",
        ),
        (
            "wireplan::script::extension_api::InitializationHandle",
            "Initialization",
        ),
        ("wireplan::script::extension_api::TypesHandle", "Types"),
        ("rhai::types::dynamic::Dynamic", "any"),
        ("types::dynamic::Dynamic", "any"),
        ("alloc::vec::Vec<any>", "array"),
        ("alloc::string::String", "string"),
    ] {
        s = s.replace(from, to);
    }
    // `Result<T,Error>` reads as `T` (errors are documented in the text).
    while let Some(i) = s.find("Result<") {
        let rest = &s[i + 7..];
        match rest.rfind(",Error>") {
            Some(j) => s = format!("{}{}{}", &s[..i], &rest[..j], &rest[j + 7..]),
            None => break,
        }
    }
    s.replace("_: &mut ", "").replace("_: ", "")
}

/// The markdown reference, generated from [`API`] and the engine's registrations.
pub fn render(engine: &Engine) -> String {
    let sigs: Vec<String> = engine
        .gen_fn_signatures(false)
        .iter()
        .map(|s| clean(s))
        .collect();
    let mut out = String::from(
        "# The scripted API\n\n\
         Generated from the registrations by `WIREPLAN_UPDATE_DOCS=1 cargo test --test scripting_docs`; \
         every example below runs in that test. Extensions are Rhai scripts with any of \
         `getConfigSchema()` (returns an `Expect` schema that validates the extension's section, and changes nothing else: a builder change there is a `script-error`), \
         `loadConfiguration()`, `beforeCompile()` and `afterCompile(plan)`, called in that order with \
         `this` bound to the extension. Method names follow Nette's `CompilerExtension` and \
         `ContainerBuilder`. Top-level statements run when the script is loaded. A top-level \
         `const NAME = …;` is readable in the lifecycle functions and the helpers they call, by \
         its bare name (a local variable of the same name wins) or as `global::NAME` (a script \
         that uses `global::` runs its top level again before each lifecycle call, which is how \
         Rhai fills `global`); top-level `let` variables are not visible in functions. Closures \
         (`|v| …`, used by `assert`/`transform`/`before`) do not see `this`: read what they need \
         into a variable first. Errors the API raises can be caught: `let code = (); try { … } catch (e) { code = e.code; }` (`try` is a statement in Rhai, not an expression: assign inside the `catch`).\n",
    );
    let mut current = "";
    for d in API {
        if d.on != current {
            current = d.on;
            out.push_str(&format!("\n## {current}\n"));
        }
        out.push_str(&format!("\n### `{}`\n\n", d.name));
        let mut matching: Vec<&String> = sigs
            .iter()
            .filter(|s| {
                let name = s.split('(').next().unwrap_or("");
                let name = name.trim_start_matches("get$").trim_start_matches("set$");
                name == d.name
                    && (d.on == "global"
                        || d.name.contains("::")
                        || d.on == "Expect schema" && s.contains("(Expect")
                        || s.contains(&format!("({} ", d.on))
                        || s.contains(&format!("({})", d.on))
                        || s.contains(&format!("({},", d.on)))
            })
            .collect();
        matching.sort();
        if !matching.is_empty() {
            out.push_str("```text\n");
            for s in matching {
                out.push_str(s);
                out.push('\n');
            }
            out.push_str("```\n\n");
        }
        out.push_str(d.text);
        out.push_str("\n\n```rhai\n");
        out.push_str(d.example);
        out.push_str("\n```\n");
    }
    out
}
