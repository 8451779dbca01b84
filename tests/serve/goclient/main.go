// A Kubernetes-style client of `charter serve`: Go's net/http, as the
// apiserver's webhook client is, over TLS with the test's CA, with
// keep-alive. It checks the answers of expected.tsv, that connections are
// reused, and that a load of reviews sent while the server reloads its bundle
// (SIGHUP every few milliseconds) gets only answers, never an error.
//
//	go run main.go -base https://127.0.0.1:PORT -ca tls.crt -reviews DIR -expected FILE -pid PID
package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

type admissionAnswer struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Response   struct {
		UID     string `json:"uid"`
		Allowed bool   `json:"allowed"`
		Status  *struct {
			Code    int    `json:"code"`
			Reason  string `json:"reason"`
			Message string `json:"message"`
		} `json:"status"`
		AuditAnnotations map[string]string `json:"auditAnnotations"`
	} `json:"response"`
}

type sarAnswer struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Status     struct {
		Allowed bool   `json:"allowed"`
		Denied  bool   `json:"denied"`
		Reason  string `json:"reason"`
	} `json:"status"`
}

var failures int

func fail(format string, args ...interface{}) {
	failures++
	fmt.Fprintf(os.Stderr, "FAIL: "+format+"\n", args...)
}

func post(client *http.Client, url string, body []byte) (int, []byte, bool, error) {
	reused := false
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused }}
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, false, err
	}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, false, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, reused, err
}

func main() {
	base := flag.String("base", "", "the server's https:// address")
	ca := flag.String("ca", "", "the CA (the server's self-signed certificate)")
	reviews := flag.String("reviews", "", "directory of reviews")
	expected := flag.String("expected", "", "expected.tsv")
	pid := flag.Int("pid", 0, "the server's pid, for SIGHUP during the load")
	flag.Parse()

	pem, err := os.ReadFile(*ca)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		fmt.Fprintln(os.Stderr, "no certificate in", *ca)
		os.Exit(1)
	}
	transport := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		MaxIdleConnsPerHost: 16,
		ForceAttemptHTTP2:   false,
	}
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}

	file, err := os.Open(*expected)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scanner := bufio.NewScanner(file)
	cases, reusedCount := 0, 0
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		name, endpoint, answer, policies := f[0], f[1], f[2], f[3]
		if policies == "-" {
			policies = ""
		}
		body, err := os.ReadFile(filepath.Join(*reviews, name))
		if err != nil {
			fail("%s: %v", name, err)
			continue
		}
		code, out, reused, err := post(client, *base+"/v1/"+endpoint, body)
		cases++
		if reused {
			reusedCount++
		}
		if err != nil || code != 200 {
			fail("%s: HTTP %d %v %s", name, code, err, out)
			continue
		}
		if endpoint == "admission" {
			var in struct {
				Request struct {
					UID string `json:"uid"`
				} `json:"request"`
			}
			json.Unmarshal(body, &in)
			var a admissionAnswer
			if err := json.Unmarshal(out, &a); err != nil {
				fail("%s: %v", name, err)
				continue
			}
			ok := a.APIVersion == "admission.k8s.io/v1" && a.Kind == "AdmissionReview" &&
				a.Response.UID == in.Request.UID && a.Response.Allowed == (answer == "allow") &&
				a.Response.AuditAnnotations["policies"] == policies
			if answer == "deny" {
				ok = ok && a.Response.Status != nil && a.Response.Status.Code == 403 && a.Response.Status.Reason == "Forbidden"
			} else {
				ok = ok && a.Response.Status == nil
			}
			if !ok {
				fail("%s: want %s (%s), got %s", name, answer, policies, out)
				continue
			}
		} else {
			var s sarAnswer
			if err := json.Unmarshal(out, &s); err != nil {
				fail("%s: %v", name, err)
				continue
			}
			want := map[string][2]bool{"allow": {true, false}, "denied": {false, true}, "noopinion": {false, false}}[answer]
			ok := s.APIVersion == "authorization.k8s.io/v1" && s.Kind == "SubjectAccessReview" &&
				s.Status.Allowed == want[0] && s.Status.Denied == want[1]
			for _, p := range strings.Split(policies, ",") {
				if p != "" && !strings.Contains(s.Status.Reason, "policy `"+p+"`") {
					ok = false
				}
			}
			if !ok {
				fail("%s: want %s (%s), got %s", name, answer, policies, out)
				continue
			}
		}
		fmt.Printf("ok: %s: %s\n", name, answer)
	}
	// One client, sequential requests: every request after the first on a
	// kept-alive connection.
	if reusedCount != cases-1 {
		fail("keep-alive: %d of %d requests reused a connection, want %d", reusedCount, cases, cases-1)
	} else {
		fmt.Printf("ok: keep-alive: %d of %d requests on a reused connection\n", reusedCount, cases)
	}

	// Load while reloading: 8 clients, 250 reviews each, SIGHUP every 5 ms.
	body, _ := os.ReadFile(filepath.Join(*reviews, "pod-create-bare-gpu.json"))
	var sent, errors, wrong int64
	stop := make(chan struct{})
	var reloads int64
	var hup sync.WaitGroup
	if *pid > 0 {
		hup.Add(1)
		go func() {
			defer hup.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(5 * time.Millisecond):
					syscall.Kill(*pid, syscall.SIGHUP)
					atomic.AddInt64(&reloads, 1)
				}
			}
		}()
	}
	var wg sync.WaitGroup
	for c := 0; c < 8; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 250; i++ {
				code, out, _, err := post(client, *base+"/v1/admission", body)
				atomic.AddInt64(&sent, 1)
				if err != nil || code != 200 {
					atomic.AddInt64(&errors, 1)
					continue
				}
				var a admissionAnswer
				if json.Unmarshal(out, &a) != nil || a.Response.Allowed || a.Response.Status == nil || a.Response.Status.Code != 403 {
					atomic.AddInt64(&wrong, 1)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	hup.Wait()
	if errors != 0 || wrong != 0 {
		fail("load with reloads: %d sent, %d errors, %d wrong answers", sent, errors, wrong)
	} else {
		fmt.Printf("ok: load with reloads: %d reviews, %d SIGHUPs, no error, every answer a denial\n", sent, reloads)
	}
	if failures > 0 {
		fmt.Fprintf(os.Stderr, "%d check(s) failed\n", failures)
		os.Exit(1)
	}
}
