package steps

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerSearchSteps registers the steps of features/search.feature.
func registerSearchSteps(s stepRegistrar) {
	s.Step(`^the administrator has written (three|five) new datasets on a platform of the scenario's own( and one on another)?$`, adminWritesPlatformDatasets)
	s.Step(`^the administrator has written a new dataset in PROD and one in DEV on a platform of the scenario's own$`, adminWritesProdAndDev)
	s.Step(`^the administrator has named the first dataset with a word of the scenario's own$`, adminNamesFirstDataset)
	s.Step(`^the administrator has soft-deleted the first dataset$`, adminSoftDeletesFirst)
	s.Step(`^a search finds the datasets of the scenario's platform$`, searchFindsPlatform)
	s.Step(`^`+who+` searches datasets (on the scenario's platform|in DEV on the scenario's platform|for that word|on the scenario's platform two at a time) as DataHub's SDK (?:does|pages)(?:, through the (metadata service|frontend))?$`, searchesDatasets)
	s.Step(`^`+who+` searches tags for the tag's name as DataHub's SDK does$`, searchesTags)
	s.Step(`^`+who+` is granted `+priv+` on the first dataset only$`, isGrantedOnFirstDataset)
	s.Step(`^the search finds (the three datasets of the platform, and not the other|the DEV dataset, and not the PROD one|the first dataset alone|the tag, and no dataset|the other two datasets of the platform, and not the soft-deleted one|the other two datasets of the platform, and not the deleted one)$`, searchFinds)
	s.Step(`^the pages find the five datasets, each once, and the last page names no next page$`, pagesFindFive)
	s.Step("^a search that asks for soft-deleted entities, as `datahub delete --hard` does, finds all three$", searchWithSoftDeletedFindsAll)
	s.Step(`^someone without a token searches datasets through the (metadata service|frontend)$`, anonymousSearch)
	s.Step(`^`+who+` searches datasets (with a scroll id the service never gave|with a negative count|with a filter condition DataHub lacks)$`, searchesFlawed)
}

// search.feature: get_urns_by_filter, as DataHub's SDK sends it
// (sdkclient.ScrollURNsQuery and ScrollVariables), page after page while
// a page names the next. DataHub's index lags behind writes, so what a
// search must find (or no longer find) is looked for again within the
// propagation window.

// searchState is what a scenario of search.feature knows.
type searchState struct {
	platform   string           // the scenario's own platform
	onPlatform []*datasetRecord // the datasets written on it, in order
	offPlat    *datasetRecord   // one written on another
	word       string           // the scenario's own word
	search     *searchRun       // the last search made in a When
}

// searchRun is a search as someone made it, to make again.
type searchRun struct {
	c      caller
	tier   string
	filter sdkclient.Filter
	found  []string   // the URNs of every page
	pages  [][]string // each page's URNs
	lastID string     // the last page's next scroll id
	last   *answer
}

// platformDataset is a dataset of the platform, in the origin.
func (w *world) platformDataset(platform, origin string) *datasetRecord {
	name := w.unique("dataset")
	return &datasetRecord{
		urn:         fmt.Sprintf("urn:li:dataset:(urn:li:dataPlatform:%s,%s,%s)", platform, name, origin),
		description: "Described by the catalogspec scenario " + name,
	}
}

// scenarioPlatform is a platform no other scenario uses: letters and
// digits only, as a platform's name is.
func (w *world) scenarioPlatform() string {
	if w.platform == "" {
		w.platform = "catalogspec" + strings.ReplaceAll(w.id, "-", "")
	}
	return w.platform
}

// writeDatasets writes each dataset's properties as the administrator, in
// one batch, as emit_mcps does.
func (w *world) writeDatasets(ds ...*datasetRecord) error {
	var mcps []sdkclient.MCP
	for _, d := range ds {
		mcps = append(mcps, propertiesItem(d).mcp)
		w.forgetLater(d)
	}
	c := w.admin()
	a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.IngestProposalBatchPath(), sdkclient.IngestProposalBatchBody(mcps, false))
	a.what = fmt.Sprintf("the administrator writing %d datasets", len(ds))
	return w.acknowledged(a)
}

func adminWritesPlatformDatasets(ctx context.Context, how, other string) error {
	w := theWorld(ctx)
	n := map[string]int{"three": 3, "five": 5}[how]
	p := w.scenarioPlatform()
	w.onPlatform = nil
	for range n {
		w.onPlatform = append(w.onPlatform, w.platformDataset(p, "PROD"))
	}
	all := slices.Clone(w.onPlatform)
	if other != "" {
		w.offPlat = w.newDataset()
		all = append(all, w.offPlat)
	}
	w.dataset = w.onPlatform[0]
	return w.writeDatasets(all...)
}

func adminWritesProdAndDev(ctx context.Context) error {
	w := theWorld(ctx)
	p := w.scenarioPlatform()
	w.onPlatform = []*datasetRecord{w.platformDataset(p, "PROD"), w.platformDataset(p, "DEV")}
	return w.writeDatasets(w.onPlatform...)
}

func adminNamesFirstDataset(ctx context.Context) error {
	w := theWorld(ctx)
	// Letters only: a search index splits words at digits and hyphens.
	// Not the platform's name (catalogspec and the scenario's id), which
	// every dataset of the platform holds in its URN.
	var b strings.Builder
	b.WriteString("catalogspecword")
	for _, r := range w.id {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		} else {
			b.WriteRune('a' + (r % 26))
		}
	}
	w.word = b.String()
	d := w.onPlatform[0]
	return w.mustIngest(w.admin(), "dataset", d.urn, "datasetProperties", map[string]any{
		"name": "Named " + w.word, "description": d.description, "customProperties": map[string]string{},
	})
}

func adminSoftDeletesFirst(ctx context.Context) error {
	w := theWorld(ctx)
	return w.mustIngest(w.admin(), "dataset", w.onPlatform[0].urn, "status", map[string]any{"removed": true})
}

// searchPages runs a search as get_urns_by_filter does: every page, while
// a page names the next; an answer that is not a page ends it.
func (w *world) searchPages(c caller, tier string, f sdkclient.Filter) *searchRun {
	run := &searchRun{c: c, tier: tier, filter: f}
	scrollID := ""
	for page := 0; page == 0 || scrollID != ""; page++ {
		if page > 100 {
			w.addFailure("a search named a next page a hundred times: it does not end")
			return run
		}
		vars := append(sdkclient.ScrollVariables(f), sdkclient.Member{Key: "scrollId", Value: nilIfEmpty(scrollID)})
		a := w.sdkSend(c, http.MethodPost, base(c, tier)+sdkclient.GraphQLPath(), sdkclient.GraphQLBody(sdkclient.ScrollURNsQuery, vars, ""))
		a.what = fmt.Sprintf("%s searching (page %d) through the %s", c.name, page+1, tier)
		a.noEffect = nothingToCheck
		run.last = a
		var res struct {
			NextScrollID  *string `json:"nextScrollId"`
			SearchResults []struct {
				Entity struct {
					URN string `json:"urn"`
				} `json:"entity"`
			} `json:"searchResults"`
		}
		if err := a.data("scrollAcrossEntities", &res); err != nil {
			return run
		}
		var urns []string
		for _, r := range res.SearchResults {
			urns = append(urns, r.Entity.URN)
		}
		run.pages = append(run.pages, urns)
		run.found = append(run.found, urns...)
		scrollID = ""
		if res.NextScrollID != nil {
			scrollID = *res.NextScrollID
		}
		run.lastID = scrollID
	}
	return run
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ok says whether every page of the run was a page.
func (r *searchRun) ok() bool {
	return r.last != nil && r.last.status == http.StatusOK && len(r.pages) > 0 && func() bool {
		g, err := r.last.decodeGraphQL()
		return err == nil && len(g.Errors) == 0
	}()
}

// platformFilter is get_urns_by_filter's arguments for the scenario's
// platform.
func (w *world) platformFilter() sdkclient.Filter {
	return sdkclient.Filter{EntityTypes: []string{"dataset"}, Platforms: []string{w.scenarioPlatform()}}
}

func urnsOf(ds ...*datasetRecord) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.urn
	}
	return out
}

// untilFound searches again, within the propagation window, until the
// run finds exactly want among the URNs that inScope says the search is
// about (and, when strict, nothing outside them).
func (w *world) untilFound(run *searchRun, want []string, inScope func(string) bool) error {
	slices.Sort(want)
	return w.eventually("the search finding "+strings.Join(want, ", "), func() (bool, error) {
		if !run.ok() {
			return false, w.fail("%s did not answer a page of results (status %d)", run.last.what, run.last.status)
		}
		var got []string
		for _, u := range run.found {
			if inScope(u) {
				got = append(got, u)
			}
		}
		slices.Sort(got)
		if slices.Equal(got, want) {
			return true, nil
		}
		miss := w.fail("the search found %v, expected %v", got, want)
		*run = *w.searchPages(run.c, run.tier, run.filter)
		return false, miss
	})
}

// onPlatformScope is whether a URN is one of the scenario's platform.
func (w *world) onPlatformScope(u string) bool {
	return strings.Contains(u, "urn:li:dataPlatform:"+w.scenarioPlatform()+",")
}

func searchFindsPlatform(ctx context.Context) error {
	w := theWorld(ctx)
	run := w.searchPages(w.admin(), tierGMS, w.platformFilter())
	return w.untilFound(run, urnsOf(w.onPlatform...), w.onPlatformScope)
}

func searchesDatasets(ctx context.Context, name, how, tier string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	f := w.platformFilter()
	switch how {
	case "in DEV on the scenario's platform":
		f.Env = "DEV"
	case "for that word":
		f.Platforms = nil
		f.Query = w.word
	case "on the scenario's platform two at a time":
		f.BatchSize = 2
	}
	w.search = w.searchPages(c, tierOrGMS(tier), f)
	w.last = w.search.last
	return w.checkpoint()
}

func searchesTags(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	if w.tag == nil {
		return w.fail("no tag was made")
	}
	w.search = w.searchPages(c, tierGMS, sdkclient.Filter{EntityTypes: []string{"tag"}, Query: w.tag.id})
	w.last = w.search.last
	return w.checkpoint()
}

func isGrantedOnFirstDataset(ctx context.Context, name, privilege string) error {
	w := theWorld(ctx)
	if len(w.onPlatform) == 0 {
		return w.fail("no dataset was written on the scenario's platform")
	}
	w.dataset = w.onPlatform[0]
	return isGrantedOnDataset(ctx, name, privilege, "the dataset")
}

func searchFinds(ctx context.Context, what string) error {
	w := theWorld(ctx)
	run := w.search
	if run == nil {
		return w.fail("no search was made")
	}
	switch what {
	case "the three datasets of the platform, and not the other":
		if err := w.untilFound(run, urnsOf(w.onPlatform...), w.onPlatformScope); err != nil {
			return err
		}
		if slices.Contains(run.found, w.offPlat.urn) {
			return w.fail("the search by platform found %s, of another platform", w.offPlat.urn)
		}
		return nil
	case "the DEV dataset, and not the PROD one":
		return w.untilFound(run, urnsOf(w.onPlatform[1]), w.onPlatformScope)
	case "the first dataset alone":
		return w.untilFound(run, urnsOf(w.onPlatform[0]), func(u string) bool {
			return w.onPlatformScope(u) || strings.HasPrefix(u, "urn:li:dataset:")
		})
	case "the tag, and no dataset":
		if err := w.eventually("the search finding "+w.tag.urn, func() (bool, error) {
			if run.ok() && slices.Contains(run.found, w.tag.urn) {
				return true, nil
			}
			miss := w.fail("the search for tags found %v, not %s", run.found, w.tag.urn)
			*run = *w.searchPages(run.c, run.tier, run.filter)
			return false, miss
		}); err != nil {
			return err
		}
		for _, u := range run.found {
			if !strings.HasPrefix(u, "urn:li:tag:") {
				return w.fail("a search for tags found %s", u)
			}
		}
		return nil
	case "the other two datasets of the platform, and not the soft-deleted one",
		"the other two datasets of the platform, and not the deleted one":
		return w.untilFound(run, urnsOf(w.onPlatform[1:]...), w.onPlatformScope)
	}
	return w.fail("unknown result %q", what)
}

func pagesFindFive(ctx context.Context) error {
	w := theWorld(ctx)
	run := w.search
	if run == nil {
		return w.fail("no search was made")
	}
	if err := w.untilFound(run, urnsOf(w.onPlatform...), w.onPlatformScope); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, u := range run.found {
		if seen[u] {
			return w.fail("the pages found %s twice: %v", u, run.pages)
		}
		seen[u] = true
	}
	for i, p := range run.pages {
		if len(p) > 2 {
			return w.fail("page %d of a search two at a time holds %d entities: %v", i+1, len(p), p)
		}
	}
	if len(run.pages) < 3 {
		return w.fail("five datasets two at a time came in %d pages: %v", len(run.pages), run.pages)
	}
	if run.lastID != "" {
		return w.fail("the last page names a next one")
	}
	return nil
}

func searchWithSoftDeletedFindsAll(ctx context.Context) error {
	w := theWorld(ctx)
	if w.search == nil {
		return w.fail("no search was made")
	}
	f := w.search.filter
	f.Status = sdkclient.StatusAll
	run := w.searchPages(w.search.c, w.search.tier, f)
	return w.untilFound(run, urnsOf(w.onPlatform...), w.onPlatformScope)
}

func anonymousSearch(ctx context.Context, tier string) error {
	w := theWorld(ctx)
	c := w.anonymous()
	vars := append(sdkclient.ScrollVariables(sdkclient.Filter{EntityTypes: []string{"dataset"}}), sdkclient.Member{Key: "scrollId", Value: nil})
	a := w.sdkSend(c, http.MethodPost, base(c, tier)+sdkclient.GraphQLPath(), sdkclient.GraphQLBody(sdkclient.ScrollURNsQuery, vars, ""))
	a.what = "someone without a token searching datasets through the " + tier
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func searchesFlawed(ctx context.Context, name, flaw string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	f := sdkclient.Filter{EntityTypes: []string{"dataset"}, BatchSize: 10}
	vars := sdkclient.ScrollVariables(f)
	scroll := any(nil)
	switch flaw {
	case "with a scroll id the service never gave":
		scroll = "catalogspec-not-a-scroll-id"
	case "with a negative count":
		vars = setMember(vars, "batchSize", -1)
	case "with a filter condition DataHub lacks":
		vars = setMember(vars, "orFilters", []any{sdkclient.Obj{{Key: "and", Value: []any{
			sdkclient.Obj{{Key: "field", Value: "platform"}, {Key: "condition", Value: "IS_NULL"}, {Key: "values", Value: []any{"x"}}},
		}}}})
	}
	vars = append(vars, sdkclient.Member{Key: "scrollId", Value: scroll})
	a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.GraphQLPath(), sdkclient.GraphQLBody(sdkclient.ScrollURNsQuery, vars, ""))
	a.what = fmt.Sprintf("%s searching datasets %s", name, flaw)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// setMember replaces a member of an object.
func setMember(o sdkclient.Obj, key string, v any) sdkclient.Obj {
	out := slices.Clone(o)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = v
		}
	}
	return out
}
