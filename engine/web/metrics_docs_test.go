package web

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestMetricsDocs: docs/monitoring.md describes every metric weir serves,
// and neither it nor the Grafana dashboard names one weir does not serve.
func TestMetricsDocs(t *testing.T) {
	served := map[string]bool{}
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	for _, d := range allDescs {
		m := fq.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("no name in %s", d)
		}
		served[m[1]] = true
	}
	doc, err := os.ReadFile("../../docs/monitoring.md")
	if err != nil {
		t.Fatal(err)
	}
	dash, err := os.ReadFile("../../docs/grafana-weir.json")
	if err != nil {
		t.Fatal(err)
	}
	var parsed map[string]any
	if err := json.Unmarshal(dash, &parsed); err != nil {
		t.Fatalf("docs/grafana-weir.json: %v", err)
	}
	for name := range served {
		if !strings.Contains(string(doc), "`"+name+"`") && !strings.Contains(string(doc), "`"+name+"{") {
			t.Errorf("docs/monitoring.md does not describe %s", name)
		}
	}
	named := regexp.MustCompile(`weir_[a-z_]+`)
	for file, text := range map[string]string{"docs/monitoring.md": string(doc), "docs/grafana-weir.json": string(dash)} {
		for _, n := range named.FindAllString(text, -1) {
			if strings.HasPrefix(n, "weir_catalog") {
				continue // the SQL schema, not a metric
			}
			base := n
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if s := strings.TrimSuffix(n, suffix); s != n && served[s] {
					base = s
				}
			}
			if !served[base] {
				t.Errorf("%s names %s, which weir does not serve", file, n)
			}
		}
	}
}
