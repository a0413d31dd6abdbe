package steps

import (
	"context"
	"encoding/json"
)

// registerGraphiQLSteps registers the steps of features/graphiql.feature.
func registerGraphiQLSteps(s stepRegistrar) {
	s.Step(`^`+who+` runs the query "([^"]+)" in GraphiQL$`, runsInGraphiQL)
	s.Step(`^`+who+` runs the query "([^"]+)" in GraphiQL with `+who+`'s token in its headers editor$`, runsInGraphiQLWithToken)
	s.Step(`^GraphiQL's result shows `+who+`'s URN$`, graphiqlShowsURN)
}

func runsInGraphiQL(ctx context.Context, name, query string) error {
	return theWorld(ctx).runInGraphiQL(name, query, "")
}

func runsInGraphiQLWithToken(ctx context.Context, name, query, owner string) error {
	w := theWorld(ctx)
	p := w.person(owner)
	if p.token == "" {
		return w.fail("%s holds no personal access token", owner)
	}
	headers, _ := json.Marshal(map[string]string{"Authorization": "Bearer " + p.token})
	return w.runInGraphiQL(name, query, string(headers))
}

func graphiqlShowsURN(ctx context.Context, name string) error {
	w := theWorld(ctx)
	want := w.person(name).urn
	m := resultURN.FindStringSubmatch(w.result)
	if m == nil || m[1] != want {
		return w.uiFail(w.current, "GraphiQL's result is %s, expected it to show %s", w.masked(w.result), want)
	}
	return nil
}
