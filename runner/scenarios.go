package runner

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/catalogspec/catalogspec"
	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"
)

// The catalog is what the features hold, read before anything runs: each
// scenario (each example row of an outline) with its id, level and
// capabilities. The runner uses it to check the tag expression, to say
// which scenarios are disabled, and to write the reports; `catalogspec
// list` prints it.

// Levels: what a correct, current DataHub does (@must), a recommendation
// beyond it (@should), or an option (@may).
const (
	levelMust   = "must"
	levelShould = "should"
	levelMay    = "may"
)

var levels = []string{levelMust, levelShould, levelMay}

// judgedLevels are the levels whose failures fail a run that fails on
// failOn: must; must and should; or all three.
func judgedLevels(failOn string) []string { return levels[:LevelRank(failOn)+1] }

// Capabilities a scenario can need, tagged @cap:<name>. auth-disabled to
// replicas need an instance besides the target's two tiers (target.go).
var knownCapabilities = []string{
	"authentication", "graphql", "tokens", "tags", "policies", "entity-paths", "ingestion", "restli", "openapi",
	"auth-disabled", "auth-disabled-frontend", "clock", "clock-frontend", "replicas", "https-frontend", "ui",
	"native-users", "sign-in", "user-management", "deletion", "patch", "search", "timeseries",
}

// idShape is what a scenario id looks like: the feature's short name and
// a number, as in token-07.
var idShape = regexp.MustCompile(`^[a-z]+-[0-9]{2,}$`)

// ScenarioInfo is one scenario as the features describe it.
type ScenarioInfo struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Feature      string   `json:"feature"`        // features/x.feature
	Line         int      `json:"line"`           // of the Scenario, or of the example row
	Rule         string   `json:"rule,omitempty"` // the Rule it falls under
	Level        string   `json:"level"`
	Capabilities []string `json:"capabilities"`
	Tags         []string `json:"tags"`
	// Steps are its steps' texts, for the schedule (schedule.go).
	Steps []string `json:"-"`
}

// Where names the scenario as features/x.feature:NN.
func (s ScenarioInfo) Where() string { return fmt.Sprintf("%s:%d", s.Feature, s.Line) }

// ReadScenarios parses every *.feature file of fsys (its root directory).
// dir is how the reports name that directory ("features").
func ReadScenarios(fsys fs.FS, dir string) ([]ScenarioInfo, error) {
	paths, err := fs.Glob(fsys, "*.feature")
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no .feature files in %s", dir)
	}
	sort.Strings(paths)
	var all []ScenarioInfo
	for _, p := range paths {
		f, err := fsys.Open(p)
		if err != nil {
			return nil, err
		}
		newID := (&messages.Incrementing{}).NewId
		doc, err := gherkin.ParseGherkinDocument(f, newID)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path.Join(dir, p), err)
		}
		lines, rules := astLines(doc)
		for _, pk := range gherkin.Pickles(*doc, p, newID) {
			info := ScenarioInfo{Name: pk.Name, Feature: path.Join(dir, p)}
			// The last AST node of an outline's pickle is its example row.
			if n := len(pk.AstNodeIds); n > 0 {
				info.Line = lines[pk.AstNodeIds[n-1]]
				info.Rule = rules[pk.AstNodeIds[0]]
			}
			for _, st := range pk.Steps {
				info.Steps = append(info.Steps, st.Text)
			}
			for _, t := range pk.Tags {
				info.Tags = append(info.Tags, t.Name)
				switch {
				case strings.HasPrefix(t.Name, "@id:"):
					info.ID = strings.TrimPrefix(t.Name, "@id:")
				case strings.HasPrefix(t.Name, "@cap:"):
					info.Capabilities = append(info.Capabilities, strings.TrimPrefix(t.Name, "@cap:"))
				case slices.Contains(levels, strings.TrimPrefix(t.Name, "@")):
					info.Level = strings.TrimPrefix(t.Name, "@")
				}
			}
			all = append(all, info)
		}
	}
	return all, nil
}

// astLines maps the ids of a document's scenarios and example rows to
// their lines, and the ids of its scenarios to the names of their rules.
func astLines(doc *messages.GherkinDocument) (map[string]int, map[string]string) {
	lines, rules := map[string]int{}, map[string]string{}
	addScenario := func(sc *messages.Scenario) {
		if sc == nil {
			return
		}
		lines[sc.Id] = int(sc.Location.Line)
		for _, ex := range sc.Examples {
			for _, row := range ex.TableBody {
				lines[row.Id] = int(row.Location.Line)
			}
		}
	}
	if doc.Feature == nil {
		return lines, rules
	}
	for _, c := range doc.Feature.Children {
		addScenario(c.Scenario)
		if c.Rule != nil {
			for _, rc := range c.Rule.Children {
				addScenario(rc.Scenario)
				if rc.Scenario != nil {
					rules[rc.Scenario.Id] = c.Rule.Name
				}
			}
		}
	}
	return lines, rules
}

// checkCatalog reports what would make a run's reports ambiguous: a
// scenario without an id or a level, or with an unknown capability.
func checkCatalog(all []ScenarioInfo) []string {
	var problems []string
	ids := map[string]string{} // id -> name of the scenario (or outline) that has it
	for _, s := range all {
		switch {
		case s.ID == "":
			problems = append(problems, fmt.Sprintf("%s: scenario %q has no @id:<id> tag", s.Where(), s.Name))
		case !idShape.MatchString(s.ID):
			problems = append(problems, fmt.Sprintf("%s: scenario %q: id %q is not <feature>-<number>", s.Where(), s.Name, s.ID))
		}
		n := 0
		for _, t := range s.Tags {
			if slices.Contains(levels, strings.TrimPrefix(t, "@")) {
				n++
			}
		}
		if n != 1 {
			problems = append(problems, fmt.Sprintf("%s: scenario %q must carry exactly one level of @must, @should and @may", s.Where(), s.Name))
		}
		if len(s.Capabilities) == 0 {
			problems = append(problems, fmt.Sprintf("%s: scenario %q has no @cap:<capability> tag", s.Where(), s.Name))
		}
		for _, c := range s.Capabilities {
			if !slices.Contains(knownCapabilities, c) {
				problems = append(problems, fmt.Sprintf("%s: scenario %q: unknown capability @cap:%s", s.Where(), s.Name, c))
			}
		}
		if s.ID != "" {
			if other, ok := ids[s.ID]; ok && other != outlineKey(s) {
				problems = append(problems, fmt.Sprintf("%s: id %s is used by two scenarios", s.Where(), s.ID))
			}
			ids[s.ID] = outlineKey(s)
		}
	}
	return problems
}

// outlineKey is the same for every example row of one outline: the rows of
// an outline share its id.
func outlineKey(s ScenarioInfo) string {
	for _, t := range s.Tags {
		if strings.HasPrefix(t, "@id:") {
			return s.Feature + " " + t
		}
	}
	return s.Feature + " " + s.Name
}

// tagExpression is godog's tag filter: alternatives separated by commas,
// each a conjunction of tags joined by &&, a tag negated by a leading ~.
type tagExpression string

func (e tagExpression) matches(tags []string) bool {
	if e == "" {
		return true
	}
	for _, alt := range strings.Split(string(e), ",") {
		ok := strings.TrimSpace(alt) != ""
		for _, term := range strings.Split(alt, "&&") {
			term = strings.ReplaceAll(strings.TrimSpace(term), "@", "")
			neg := strings.HasPrefix(term, "~")
			term = strings.TrimPrefix(term, "~")
			has := slices.ContainsFunc(tags, func(t string) bool { return strings.TrimPrefix(t, "@") == term })
			if has == neg {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// unknownTags lists the tags the expression names that no scenario has: a
// typo such as @smok, which would otherwise select nothing, or everything
// when negated.
func (e tagExpression) unknownTags(all []ScenarioInfo) []string {
	have := map[string]bool{}
	for _, s := range all {
		for _, t := range s.Tags {
			have[strings.TrimPrefix(t, "@")] = true
		}
	}
	var unknown []string
	for _, term := range strings.FieldsFunc(string(e), func(r rune) bool { return r == ',' || r == '&' }) {
		term = strings.TrimPrefix(strings.ReplaceAll(strings.TrimSpace(term), "@", ""), "~")
		if term != "" && !have[term] && !slices.Contains(unknown, "@"+term) {
			unknown = append(unknown, "@"+term)
		}
	}
	return unknown
}

// tagsInUse lists the tags worth offering, for an error message: levels,
// depths and capabilities, not ids.
func tagsInUse(all []ScenarioInfo) []string {
	set := map[string]bool{}
	for _, s := range all {
		for _, t := range s.Tags {
			if !strings.HasPrefix(t, "@id:") {
				set[t] = true
			}
		}
	}
	var out []string
	for t := range set {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Scenario is one scenario of the specification, as `catalogspec list`
// shows it.
type Scenario struct {
	ID           string   `json:"id"`
	Level        string   `json:"level"`
	Capabilities []string `json:"capabilities"`
	Where        string   `json:"where"`
	Rule         string   `json:"rule,omitempty"`
	Name         string   `json:"name"`
}

// Scenarios lists the scenarios of the built-in features, in file order.
func Scenarios() ([]Scenario, error) {
	catalog, err := ReadScenarios(catalogspec.Features(), "features")
	if err != nil {
		return nil, err
	}
	out := make([]Scenario, 0, len(catalog))
	for _, s := range catalog {
		out = append(out, Scenario{ID: s.ID, Level: s.Level, Capabilities: s.Capabilities, Where: s.Where(), Rule: s.Rule, Name: s.Name})
	}
	return out, nil
}

// LevelRank orders the levels: a failure fails the run when its level's
// rank is at most the fail-on level's.
func LevelRank(level string) int {
	if i := slices.Index(levels, level); i >= 0 {
		return i
	}
	return 0 // a scenario without a level is held to the floor
}
