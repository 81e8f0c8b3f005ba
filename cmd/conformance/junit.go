package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/orgportal/portal-api/conformance"
)

// JUnit XML, as CI systems read it: one testsuite per top-level group of the
// suite, one testcase per test that counts (Report.Cases).

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func seconds(r *conformance.Result) string { return fmt.Sprintf("%.3f", r.Elapsed.Seconds()) }

// junitOf converts a report.
func junitOf(rep *conformance.Report) junitSuites {
	out := junitSuites{Name: rep.Root.Name, Time: fmt.Sprintf("%.3f", rep.Elapsed.Seconds())}
	index := map[string]int{}
	for _, c := range rep.Cases() {
		// conformance/examples/moveItems/toRoot: suite "examples",
		// class "conformance/examples/moveItems", name "toRoot".
		parts := strings.Split(c.Name, "/")
		group := parts[0]
		if len(parts) > 1 {
			group = parts[1]
		}
		class, name := c.Name, c.Name
		if i := strings.LastIndex(c.Name, "/"); i >= 0 {
			class, name = c.Name[:i], c.Name[i+1:]
		}
		i, ok := index[group]
		if !ok {
			i = len(out.Suites)
			index[group] = i
			out.Suites = append(out.Suites, junitSuite{Name: group, Time: "0.000", Timestamp: rep.Started.UTC().Format("2006-01-02T15:04:05")})
			for _, g := range rep.Root.Subtests {
				if g.Name == rep.Root.Name+"/"+group {
					out.Suites[i].Time = seconds(g)
				}
			}
		}
		s := &out.Suites[i]
		tc := junitCase{Classname: class, Name: name, Time: seconds(c)}
		var logs []string
		for _, m := range c.Messages {
			if m.Kind == conformance.LogMessage {
				logs = append(logs, m.Text)
			}
		}
		tc.SystemOut = strings.Join(logs, "\n")
		switch errs := c.Errors(); {
		case len(errs) > 0:
			first, _, _ := strings.Cut(errs[0], "\n")
			tc.Failure = &junitMessage{Message: first, Text: strings.Join(errs, "\n\n")}
			s.Failures++
			out.Failures++
		case c.Status == conformance.NotRun || len(c.Subtests) > 0:
			tc.Skipped = &junitMessage{Message: c.SkipReason()}
			s.Skipped++
			out.Skipped++
		}
		s.Cases = append(s.Cases, tc)
		s.Tests++
		out.Tests++
	}
	return out
}

func writeJUnit(w io.Writer, rep *conformance.Report) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitOf(rep)); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func writeJUnitFile(path string, rep *conformance.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if err := writeJUnit(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("junit %s: %w", path, err)
	}
	return f.Close()
}
