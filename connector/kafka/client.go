package kafka

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// clientOpts are the franz-go options every client of o shares: the
// brokers, TLS and SASL.
func clientOpts(o Options) []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(o.Brokers...), kgo.DialTimeout(5 * time.Second)}
	if o.TLS {
		opts = append(opts, kgo.DialTLSConfig(&tls.Config{MinVersion: tls.VersionTLS12}))
	}
	switch o.SASLMechanism {
	case "PLAIN":
		opts = append(opts, kgo.SASL(plain.Auth{User: o.SASLUser, Pass: o.SASLPassword}.AsMechanism()))
	case "SCRAM-SHA-256":
		opts = append(opts, kgo.SASL(scram.Auth{User: o.SASLUser, Pass: o.SASLPassword}.AsSha256Mechanism()))
	case "SCRAM-SHA-512":
		opts = append(opts, kgo.SASL(scram.Auth{User: o.SASLUser, Pass: o.SASLPassword}.AsSha512Mechanism()))
	}
	return opts
}

// Codes of the errors a Kafka connector gives.
const (
	// CodeCannotConnect is PostgreSQL's sqlclient_unable_to_establish_sqlconnection.
	CodeCannotConnect = "08001"
	// CodeAuth is invalid_authorization_specification.
	CodeAuth = "28000"
)

// brokerError maps a client error to a SQLSTATE error.
func brokerError(brokers []string, err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed), errors.Is(err, kerr.TopicAuthorizationFailed),
		errors.Is(err, kerr.ClusterAuthorizationFailed), errors.Is(err, kerr.TransactionalIDAuthorizationFailed):
		return sqlerr.New(CodeAuth, "Kafka refused the credentials: %v", err)
	case errors.As(err, &ne), errors.Is(err, context.DeadlineExceeded), strings.Contains(err.Error(), "unable to dial"):
		return sqlerr.New(CodeCannotConnect, "could not connect to Kafka at %s: %v", strings.Join(brokers, ","), err).
			WithHint("Check bootstrapServers: a broker must listen there.")
	}
	return sqlerr.New(CodeCannotConnect, "Kafka at %s: %v", strings.Join(brokers, ","), err)
}

// Check connects to o's brokers and looks the topics up: what CREATE
// SOURCE can know before it stores a source. An unreachable broker is
// 08001, refused credentials 28000, a subscribed topic that does not
// exist 42P01 (a pattern may match nothing yet: that is no error).
func Check(ctx context.Context, o Options) error {
	cl, err := kgo.NewClient(clientOpts(o)...)
	if err != nil {
		return sqlerr.New(sqlerr.InvalidParameterValue, "invalid Kafka client settings: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	adm := kadm.NewClient(cl)
	var want []string
	want = append(want, o.Topics...)
	for t := range o.Assign {
		want = append(want, t)
	}
	if len(want) == 0 {
		if _, err := adm.ListTopics(ctx); err != nil {
			return brokerError(o.Brokers, err)
		}
		return nil
	}
	td, err := adm.ListTopics(ctx, want...)
	if err != nil {
		return brokerError(o.Brokers, err)
	}
	for _, t := range want {
		d, ok := td[t]
		if !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
			return sqlerr.New(sqlerr.UndefinedTable, "Kafka topic \"%s\" does not exist", t).
				WithHint("Create the topic first (kcat -P creates it where the broker allows auto-creation), or subscribe to a pattern.")
		}
		if d.Err != nil {
			return brokerError(o.Brokers, d.Err)
		}
		for _, p := range o.Assign[t] {
			if _, ok := d.Partitions[p]; !ok {
				return sqlerr.New(sqlerr.UndefinedTable, "Kafka topic \"%s\" has no partition %d", t, p)
			}
		}
	}
	return nil
}
