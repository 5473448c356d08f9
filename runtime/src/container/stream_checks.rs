//! The checks of the binary fast path ([`super`]) that look across what it read: the types
//! index, captive dependencies, and the arguments of calls with declared parameters (literals,
//! folded dynamic parameters, service references). Each answers whether the plan has a
//! problem; the fast path then gives up and the model path reports it with its message.

use super::*;

impl Stream<'_, '_> {
    /// Whether a literal among the arguments `range` (as many as `params`) is one the declared
    /// parameter type refuses ([`super::super::literals::refused_by`]): a load problem the model
    /// path reports.
    pub(super) fn refuses_a_literal(
        &self,
        params: &[crate::catalog::Param],
        range: ArgRange,
    ) -> bool {
        let args = &self.args[range.start as usize..range.end as usize];
        params.iter().zip(args).any(|(p, node)| {
            let lit = match node {
                Node::Const(c) => self.consts.get(*c as usize).and_then(Literal::of_value),
                _ => None,
            };
            lit.is_some_and(|lit| {
                super::super::literals::refused_by(p, self.registry, lit).is_some()
            })
        })
    }

    /// Whether a `$new` or a setup call on `@self` passes a service (now that every reference
    /// is resolved) to a parameter the registration declares and that does not take the
    /// object the service makes.
    pub(super) fn refuses_a_reference(&self) -> bool {
        let registry = self.registry;
        self.any_signed_call(|params, range| {
            let args = &self.args[range.start as usize..range.end as usize];
            params.iter().zip(args).any(|(p, node)| match node {
                Node::Ref(j) => self.made.get(*j).is_some_and(|made| {
                    super::super::literals::refuses_object(p, registry, *made).is_some()
                }),
                _ => false,
            })
        })
    }

    /// Whether an argument of a service with declared parameters, its dynamic parameters now
    /// folded into constants, is one the declared type refuses.
    pub(super) fn refuses_a_folded_value(&self) -> bool {
        self.any_signed_call(|params, range| self.refuses_a_literal(params, range))
    }

    /// Whether `refused(declared parameters, arguments)` holds for a call with declared
    /// parameters of a service in [`Stream::signed`]: its `$new`, or a setup method call.
    pub(super) fn any_signed_call(
        &self,
        refused: impl Fn(&[crate::catalog::Param], ArgRange) -> bool,
    ) -> bool {
        let registry = self.registry;
        self.signed.iter().any(|&i| {
            let (Some(new), Some(service)) =
                (self.news.get(i as usize), self.services.get(i as usize))
            else {
                return false;
            };
            let Some((_, entry)) = registry.t.classes.get_index(new.class as usize) else {
                return false;
            };
            let ctor = entry
                .more()
                .ctor_sig
                .as_ref()
                .is_some_and(|params| refused(params, new.args));
            ctor || service.setup.iter().any(|st| match st {
                Setup::Member {
                    kind: MemberKind::Method,
                    member,
                    inputs,
                    ..
                } => registry
                    .type_entry(entry.type_id)
                    .and_then(|t| t.method_sigs.get(&**member))
                    .is_some_and(|sig| refused(&sig.params, *inputs)),
                _ => false,
            })
        })
    }

    /// The `types` index: every listed service exists and is autowired, and every registered
    /// interface a service is autowired for has a caster from the service's class.
    pub(super) fn check_types(&self, types: &NameMap<TypeServices>) -> Option<()> {
        let registry = self.registry;
        for (ty, list) in types {
            let iface = registry.t.interfaces.get(ty.as_str()).map(|(id, _)| *id);
            for n in list {
                let i = self.names.get_index_of(n.as_str())?;
                // A service written `autowired: false` in the index is a load problem.
                if !self.not_autowired.is_empty()
                    && self.not_autowired.binary_search(&(i as u32)).is_ok()
                {
                    return None;
                }
                if let Some(iface) = iface {
                    if ty.as_str() != self.class_name(i)
                        && !registry.t.casters.contains_key(&(self.made[i], iface))
                    {
                        return None;
                    }
                }
            }
        }
        Some(())
    }

    /// The services service `i` references: its `$new`'s arguments and its setup's inputs
    /// (the only places this reader takes references).
    pub(super) fn refs_of(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let ranges = std::iter::once(self.news[i].args).chain(
            self.services[i].setup.iter().filter_map(|st| match st {
                Setup::Member { inputs, .. } => Some(*inputs),
                Setup::Other(_) => None,
            }),
        );
        ranges.flat_map(move |r| {
            self.args[r.start as usize..r.end as usize]
                .iter()
                .filter_map(|n| match n {
                    Node::Ref(j) => Some(*j),
                    _ => None,
                })
        })
    }

    /// Whether some singleton holds a scoped service, directly or through transients created
    /// with it (`crate::plan::captives`, which the model path reports). Each transient is
    /// walked once (an explicit stack: a chain of transients may be long); a transient on a
    /// cycle of transients (a construction cycle, which the compiler refuses) may be taken
    /// as reaching nothing.
    pub(super) fn holds_captive(&self) -> bool {
        // Per transient: whether it reaches a scoped service through transients.
        const UNSEEN: u8 = 0;
        const OPEN: u8 = 1;
        const NO: u8 = 2;
        const YES: u8 = 3;
        let n = self.services.len();
        let mut state = vec![UNSEEN; n];
        let lifespan = |j: usize| self.services[j].lifespan;
        let reaches = |t: usize, state: &mut Vec<u8>| -> bool {
            if state[t] >= NO {
                return state[t] == YES;
            }
            // (node, its references not yet looked at)
            let mut stack: Vec<(usize, Vec<usize>)> = vec![(t, self.refs_of(t).collect())];
            state[t] = OPEN;
            while let Some((node, pending)) = stack.last_mut() {
                let node = *node;
                match pending.pop() {
                    Some(j) if j >= n => {}
                    Some(j) if lifespan(j) == Lifespan::Scoped => {
                        for (k, _) in stack.drain(..) {
                            state[k] = YES;
                        }
                        return true;
                    }
                    Some(j) if lifespan(j) == Lifespan::Transient => match state[j] {
                        UNSEEN => {
                            state[j] = OPEN;
                            stack.push((j, self.refs_of(j).collect()));
                        }
                        YES => {
                            for (k, _) in stack.drain(..) {
                                state[k] = YES;
                            }
                            return true;
                        }
                        _ => {}
                    },
                    Some(_) => {}
                    None => {
                        state[node] = NO;
                        stack.pop();
                    }
                }
            }
            false
        };
        (0..n)
            .filter(|&i| lifespan(i) == Lifespan::Singleton)
            .any(|i| {
                self.refs_of(i).any(|j| {
                    j < n
                        && match lifespan(j) {
                            Lifespan::Scoped => true,
                            Lifespan::Transient => reaches(j, &mut state),
                            Lifespan::Singleton => false,
                        }
                })
            })
    }
}
