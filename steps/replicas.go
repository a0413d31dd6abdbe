package steps

import (
	"context"
	"time"
)

// registerReplicasSteps registers the steps of features/replicas.feature.
func registerReplicasSteps(s stepRegistrar) {
	s.Step(`^`+who+`'s token works on the other instance$`, tokenWorksOnReplica)
	s.Step(`^200 milliseconds later, `+who+`'s token is refused by the other instance$`, tokenRefusedOnReplicaLater)
	s.Step(`^`+who+` can create a tag through the other instance$`, canCreateTagOnReplica)
	s.Step(`^200 milliseconds later, `+who+` cannot create a tag through the other instance$`, cannotCreateTagOnReplicaLater)
}

// replicaDelay is how long after a change the other instance is asked: the
// contract's bound for replicas sharing a database.
const replicaDelay = 200 * time.Millisecond

// onReplica is name, with their token, at the other instance.
func (w *world) onReplica(name string) (caller, error) {
	c, err := w.as(w.person(name))
	if err != nil {
		return caller{}, err
	}
	c.gms, c.frontend = w.suite.Target.ReplicaGMS, ""
	return c, nil
}

// tokenWorksOnReplica: the token, made through the first instance, stands
// for its user at the other (within the propagation window: a new token
// need not show at once).
func tokenWorksOnReplica(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.onReplica(name)
	if err != nil {
		return err
	}
	p := w.person(name)
	return w.eventually(name+"'s token working on the other instance", func() (bool, error) {
		err := w.answerNames(w.askWhoAmI(c, ""), p.urn)
		return err == nil, err
	})
}

// tokenRefusedOnReplicaLater asks once, replicaDelay after the revocation
// was answered.
func tokenRefusedOnReplicaLater(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.onReplica(name)
	if err != nil {
		return err
	}
	time.Sleep(replicaDelay)
	a := w.askWhoAmI(c, "")
	a.what = name + "'s revoked token asking the other instance, 200 ms after the revocation, who it stands for"
	return w.refused(a)
}

func canCreateTagOnReplica(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.onReplica(name)
	if err != nil {
		return err
	}
	return w.eventually(name+" being able to create a tag through the other instance", func() (bool, error) {
		err := w.createsAndReadsBack(c)
		return err == nil, err
	})
}

// cannotCreateTagOnReplicaLater tries once, replicaDelay after the policy
// change was answered: refused as unauthorized, and no tag made.
func cannotCreateTagOnReplicaLater(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.onReplica(name)
	if err != nil {
		return err
	}
	time.Sleep(replicaDelay)
	return w.cannotCreateTag(c, false)
}
