package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/orgportal/portal-api/client"
)

// Envelope is the generated client's HTTP client: the portal's error envelope, answered with HTTP 200, comes
// back as a *client.Error.
type Envelope struct{ http.Client }

func (c *Envelope) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.Client.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	var answer struct{ Error *client.Error }
	if err == nil && json.Unmarshal(body, &answer) == nil && answer.Error != nil {
		return nil, answer.Error
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, err
}
