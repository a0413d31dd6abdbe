package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/catalogspec/catalogspec/sdkclient"
)

// registerTimeseriesSteps registers the steps of features/timeseries.feature.
func registerTimeseriesSteps(s stepRegistrar) {
	s.Step(`^the administrator has written three profiles of a new dataset, a day apart$`, adminWroteProfiles)
	s.Step(`^`+who+` reads the dataset's profiles through the (metadata service|frontend)$`, readsProfiles)
	s.Step(`^the answer holds the three profiles, the latest first$`, answerHoldsProfiles)
	s.Step(`^`+who+` reads the dataset's latest profile as the datahub CLI does$`, readsLatestProfileAsCLI)
	s.Step(`^the answer's first value is the latest profile$`, firstValueIsLatest)
	s.Step(`^the administrator has written checkpoints of two pipelines on one data job$`, adminWroteCheckpoints)
	s.Step(`^`+who+` reads the latest checkpoint of the first pipeline$`, readsLatestCheckpoint)
	s.Step(`^the answer is that pipeline's latest checkpoint alone$`, answerIsLatestCheckpoint)
	s.Step(`^`+who+` reads the dataset's profiles of the middle day$`, readsMiddleDay)
	s.Step(`^the answer holds the middle profile alone$`, answerHoldsMiddleProfile)
	s.Step(`^the administrator writes the latest profile again with another row count$`, adminRewritesLatestProfile)
	s.Step(`^the dataset's profiles are three, the latest with the new row count$`, profilesShowRewrite)
	s.Step(`^`+who+` writes a batch of a new dataset's properties and a profile of it without its time$`, writesProfileWithoutTime)
	s.Step(`^the dataset was not made$`, datasetNotMade)
	s.Step(`^the answer shows none of the profiles$`, answerShowsNoneOfTheProfiles)
	s.Step(`^someone without a token reads a dataset's profiles through the (metadata service|frontend)$`, anonymousReadsProfiles)
	s.Step(`^`+who+` reads the dataset's properties as a timeseries aspect$`, readsPropertiesAsTimeseries)
}

// timeseries.feature: values of timeseries aspects written with the SDK's
// emit_mcps (Rest.li) and read with getTimeseriesAspectValues as
// get_timeseries_values, get_latest_timeseries_value and `datahub get`
// send it.

// seriesState is what a scenario of timeseries.feature knows.
type seriesState struct {
	profiles []profile // the dataset's profiles, oldest first
	// checkpoints are those of the data job, oldest first.
	checkpoints []checkpoint
	job         string // the data job's URN
}

// profile is one datasetProfile value the scenario wrote.
type profile struct {
	timestamp int64
	rowCount  int64
}

func (p profile) mcp(urn string) sdkclient.MCP {
	return sdkclient.MCP{EntityURN: urn, AspectName: "datasetProfile", Aspect: sdkclient.Obj{
		{Key: "timestampMillis", Value: p.timestamp}, {Key: "rowCount", Value: p.rowCount}, {Key: "columnCount", Value: int64(3)},
	}}
}

// checkpoint is one datahubIngestionCheckpoint value the scenario wrote.
type checkpoint struct {
	pipeline, runID string
	timestamp       int64
}

func (c checkpoint) mcp(job string) sdkclient.MCP {
	return sdkclient.MCP{EntityURN: job, AspectName: "datahubIngestionCheckpoint", Aspect: sdkclient.Obj{
		{Key: "timestampMillis", Value: c.timestamp}, {Key: "pipelineName", Value: c.pipeline},
		{Key: "platformInstanceId", Value: ""}, {Key: "config", Value: ""},
		{Key: "state", Value: sdkclient.Obj{{Key: "formatVersion", Value: "1.0"}, {Key: "serde", Value: "utf-8"}, {Key: "payload", Value: `{"urns":[]}`}}},
		{Key: "runId", Value: c.runID},
	}}
}

// day is how far apart the scenario's profiles are.
const day = 24 * time.Hour

// mustWriteBatch writes ms as the administrator with the SDK's
// ingestProposalBatch (emit_mcps, synchronous), which must be taken.
func (w *world) mustWriteBatch(ms []sdkclient.MCP) error {
	c := w.admin()
	a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.IngestProposalBatchPath(), sdkclient.IngestProposalBatchBody(ms, false))
	a.what = fmt.Sprintf("the administrator writing a batch of %d proposals", len(ms))
	return w.acknowledged(a)
}

// readSeries reads urn's timeseries aspect as c through the tier, as
// get_timeseries_values sends it (filter nil: none).
func (w *world) readSeries(c caller, tier, urn, aspect string, filter sdkclient.Obj, limit int) *answer {
	body := sdkclient.TimeseriesValuesBody(urn, aspect, filter, limit)
	if filter == nil {
		// get_timeseries_values always names a filter; a read without one
		// (get_usage_aspects_from_urn) names the time range instead.
		body = sdkclient.Dumps(sdkclient.Obj{{Key: "urn", Value: urn}, {Key: "entity", Value: strings.SplitN(urn, ":", 4)[2]}, {Key: "aspect", Value: aspect}, {Key: "limit", Value: limit}})
	}
	a := w.sdkSend(c, http.MethodPost, base(c, tier)+sdkclient.TimeseriesPath(), body)
	a.what = fmt.Sprintf("%s reading the %s of %s through the %s", c.name, aspect, urn, tier)
	a.subject = urn
	a.noEffect = nothingToCheck
	return a
}

// seriesValues reads the values out of a getTimeseriesAspectValues answer
// as get_timeseries_values does: value.values, each aspect.value JSON
// text of the aspect.
func (w *world) seriesValues(a *answer) ([]map[string]any, error) {
	if a.status != http.StatusOK {
		return nil, w.fail("%s answered status %d, expected 200", a.what, a.status)
	}
	var body struct {
		Value struct {
			Values []struct {
				Aspect struct {
					Value *string `json:"value"`
				} `json:"aspect"`
			} `json:"values"`
		} `json:"value"`
	}
	if err := a.jsonBody(&body); err != nil {
		return nil, w.fail("%s: %v (get_timeseries_values reads value.values[].aspect.value)", a.what, err)
	}
	out := make([]map[string]any, 0, len(body.Value.Values))
	for i, v := range body.Value.Values {
		if v.Aspect.Value == nil {
			return nil, w.fail("%s: value %d has no aspect.value: DataHub's SDK raises GraphError", a.what, i+1)
		}
		var m map[string]any
		dec := json.NewDecoder(strings.NewReader(*v.Aspect.Value))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return nil, w.fail("%s: value %d's aspect.value is not the JSON text of an object: %v", a.what, i+1, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// profileOf is the time and row count of a profile read back.
func profileOf(m map[string]any) string {
	return fmt.Sprintf("%v/%v", m["timestampMillis"], m["rowCount"])
}

func (p profile) String() string { return fmt.Sprintf("%d/%d", p.timestamp, p.rowCount) }

// profilesAre checks that the values read are the profiles, in order.
func (w *world) profilesAre(a *answer, want []profile) error {
	values, err := w.seriesValues(a)
	if err != nil {
		return err
	}
	got := make([]string, len(values))
	for i, v := range values {
		got[i] = profileOf(v)
	}
	exp := make([]string, len(want))
	for i, p := range want {
		exp[i] = p.String()
	}
	if strings.Join(got, " ") != strings.Join(exp, " ") {
		return w.fail("%s holds the profiles (time/rows) %v, expected %v", a.what, got, exp)
	}
	return nil
}

// latestFirst is the scenario's profiles, the latest first.
func (w *world) latestFirst() []profile {
	out := make([]profile, len(w.profiles))
	for i, p := range w.profiles {
		out[len(out)-1-i] = p
	}
	return out
}

// Steps.

func adminWroteProfiles(ctx context.Context) error {
	w := theWorld(ctx)
	d := w.newDataset()
	w.dataset = d
	first := time.Now().Add(-3 * day).Truncate(time.Hour).UnixMilli()
	var ms []sdkclient.MCP
	for i := range 3 {
		p := profile{timestamp: first + int64(i)*day.Milliseconds(), rowCount: int64(100 * (i + 1))}
		w.profiles = append(w.profiles, p)
		ms = append(ms, p.mcp(d.urn))
	}
	// Written in an order that is not theirs: the read orders them.
	ms[0], ms[2] = ms[2], ms[0]
	if err := w.mustWriteBatch(ms); err != nil {
		return err
	}
	// DataHub keeps timeseries values in its search index, which shows a
	// write a little later.
	return w.eventually("the three profiles showing", func() (bool, error) {
		err := w.profilesAre(w.readSeries(w.reader(), "metadata service", d.urn, "datasetProfile", nil, 10), w.latestFirst())
		return err == nil, err
	})
}

func readsProfiles(ctx context.Context, name, tier string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.readSeries(c, tier, d.urn, "datasetProfile", sdkclient.Obj{}, 10)
	return w.checkpoint()
}

func answerHoldsProfiles(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.profilesAre(a, w.latestFirst())
}

// readsLatestProfileAsCLI sends what `datahub get --urn <urn> -a
// datasetProfile` sends for the timeseries aspect
// (get_latest_timeseries_aspect_values: latestValue).
func readsLatestProfileAsCLI(ctx context.Context, name string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.TimeseriesPath(), sdkclient.LatestTimeseriesBody(d.urn, "datasetProfile"))
	a.what = fmt.Sprintf("%s reading the latest profile of %s as datahub get does", name, d.urn)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

// firstValueIsLatest: the CLI prints values[0].
func firstValueIsLatest(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	values, err := w.seriesValues(a)
	if err != nil {
		return err
	}
	if len(values) == 0 {
		return w.fail("%s holds no value: datahub get prints nothing of the profile", a.what)
	}
	if got, want := profileOf(values[0]), w.latestFirst()[0].String(); got != want {
		return w.fail("%s's first value is the profile %s, expected the latest, %s", a.what, got, want)
	}
	return nil
}

func adminWroteCheckpoints(ctx context.Context) error {
	w := theWorld(ctx)
	first, second := w.unique("pipeline"), w.unique("pipeline")
	w.job = sdkclient.CheckpointJobURN(first, "hive_stale_entity_removal")
	start := time.Now().Add(-time.Hour).UnixMilli()
	// Each pipeline's checkpoints, interleaved; the other pipeline's is the
	// latest of all.
	for i, p := range []string{first, second, first, second} {
		w.checkpoints = append(w.checkpoints, checkpoint{pipeline: p, runID: w.unique("run"), timestamp: start + int64(i)*60_000})
	}
	var ms []sdkclient.MCP
	for _, c := range w.checkpoints {
		ms = append(ms, c.mcp(w.job))
	}
	if err := w.mustWriteBatch(ms); err != nil {
		return err
	}
	return w.eventually("the checkpoints showing", func() (bool, error) {
		values, err := w.seriesValues(w.readSeries(w.reader(), "metadata service", w.job, "datahubIngestionCheckpoint", nil, 10))
		if err != nil {
			return false, err
		}
		return len(values) == len(w.checkpoints), w.fail("%d of the %d checkpoints show", len(values), len(w.checkpoints))
	})
}

// readsLatestCheckpoint sends what get_latest_timeseries_value sends for
// DatahubIngestionCheckpointingProvider.get_latest_checkpoint: the
// pipeline's name as the filter, a limit of one.
func readsLatestCheckpoint(ctx context.Context, name string) error {
	w := theWorld(ctx)
	if len(w.checkpoints) == 0 {
		return w.fail("no checkpoint was written")
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	filter := sdkclient.LatestFilter(sdkclient.Obj{{Key: "pipelineName", Value: w.checkpoints[0].pipeline}})
	w.last = w.readSeries(c, "metadata service", w.job, "datahubIngestionCheckpoint", filter, 1)
	return w.checkpoint()
}

func answerIsLatestCheckpoint(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	values, err := w.seriesValues(a)
	if err != nil {
		return err
	}
	want := w.checkpoints[2] // the first pipeline's later one
	if len(values) != 1 {
		return w.fail("%s holds %d checkpoints, expected 1 (get_latest_timeseries_value asserts as much)", a.what, len(values))
	}
	if values[0]["runId"] != want.runID || values[0]["pipelineName"] != want.pipeline {
		return w.fail("%s is the checkpoint of run %v of pipeline %v, expected run %s of %s", a.what, values[0]["runId"], values[0]["pipelineName"], want.runID, want.pipeline)
	}
	return nil
}

// readsMiddleDay names the middle profile's day, from its start to its
// end, as get_usage_aspects_from_urn names a time range.
func readsMiddleDay(ctx context.Context, name string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	mid := w.profiles[1].timestamp
	body := sdkclient.Dumps(sdkclient.Obj{{Key: "urn", Value: d.urn}, {Key: "entity", Value: "dataset"}, {Key: "aspect", Value: "datasetProfile"},
		{Key: "startTimeMillis", Value: mid - day.Milliseconds()/2}, {Key: "endTimeMillis", Value: mid + day.Milliseconds()/2}})
	a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.TimeseriesPath(), body)
	a.what = fmt.Sprintf("%s reading the profiles of %s of the middle day", name, d.urn)
	a.noEffect = nothingToCheck
	w.last = a
	return w.checkpoint()
}

func answerHoldsMiddleProfile(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	return w.profilesAre(a, w.profiles[1:2])
}

func adminRewritesLatestProfile(ctx context.Context) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	latest := &w.profiles[len(w.profiles)-1]
	latest.rowCount += 7
	return w.mustWriteBatch([]sdkclient.MCP{latest.mcp(d.urn)})
}

func profilesShowRewrite(ctx context.Context) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	return w.eventually("the profile written again showing", func() (bool, error) {
		a := w.readSeries(w.reader(), "metadata service", d.urn, "datasetProfile", nil, 10)
		w.last = a
		err := w.profilesAre(a, w.latestFirst())
		return err == nil, err
	})
}

func writesProfileWithoutTime(ctx context.Context, name string) error {
	w := theWorld(ctx)
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	d := w.newDataset()
	w.dataset = d
	ms := []sdkclient.MCP{
		{EntityURN: d.urn, AspectName: "datasetProperties", Aspect: propertiesAspect(d.description)},
		{EntityURN: d.urn, AspectName: "datasetProfile", Aspect: sdkclient.Obj{{Key: "rowCount", Value: int64(1)}}},
	}
	a := w.sdkSend(c, http.MethodPost, c.gms+sdkclient.IngestProposalBatchPath(), sdkclient.IngestProposalBatchBody(ms, false))
	a.what = fmt.Sprintf("%s writing %s's properties and a profile without its time", name, d.urn)
	a.noEffect = func() error { return w.entityNotMade(d.urn, "datasetKey") }
	w.last = a
	return w.checkpoint()
}

// entityNotMade checks that urn has no key aspect: the entity was never
// made (exists() is false), so nothing of a refused batch reached it.
func (w *world) entityNotMade(urn, keyAspect string) error {
	a := w.readAspect(w.reader(), tierGMS, urn, keyAspect)
	if a.status != http.StatusNotFound {
		return w.fail("%s answered status %d, expected 404: something was stored", a.what, a.status)
	}
	return nil
}

func datasetNotMade(ctx context.Context) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	if err := w.entityNotMade(d.urn, "datasetKey"); err != nil {
		return err
	}
	return w.datasetAbsent(d)
}

func answerShowsNoneOfTheProfiles(ctx context.Context) error {
	w := theWorld(ctx)
	a, err := w.lastAnswer()
	if err != nil {
		return err
	}
	for _, p := range w.profiles {
		if strings.Contains(string(a.body), fmt.Sprint(p.timestamp)) {
			return w.fail("%s was refused, but its answer shows the profile of %d", a.what, p.timestamp)
		}
	}
	return nil
}

func anonymousReadsProfiles(ctx context.Context, tier string) error {
	w := theWorld(ctx)
	a := w.readSeries(w.anonymous(), tier, w.newDataset().urn, "datasetProfile", sdkclient.Obj{}, 10)
	a.what = "someone without a token reading a dataset's profiles through the " + tier
	w.last = a
	return w.checkpoint()
}

func readsPropertiesAsTimeseries(ctx context.Context, name string) error {
	w := theWorld(ctx)
	d, err := w.theDataset()
	if err != nil {
		return err
	}
	c, err := w.as(w.person(name))
	if err != nil {
		return err
	}
	w.last = w.readSeries(c, "metadata service", d.urn, "datasetProperties", sdkclient.Obj{}, 10)
	return w.checkpoint()
}
