package postgres

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/teammemd/teammemd/server/store/postgres/pgtest"
)

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://tm:s3cret@db.internal:5432/teammemd", "postgres://tm:xxxxx@db.internal:5432/teammemd"},
		{"postgresql://tm@db/teammemd?sslmode=require", "postgresql://tm@db/teammemd?sslmode=require"},
		{"postgres://db/teammemd?user=tm&password=s3cret", "postgres://db/teammemd?password=xxxxx&user=tm"},
		{"postgres://tm:p%40ss@db/x?sslpassword=k3y", "postgres://tm:xxxxx@db/x?sslpassword=xxxxx"},
		{"host=db user=tm password=s3cret dbname=x", "host=db user=tm password=xxxxx dbname=x"},
		{"host=db password='it''s s3cret' dbname=x", "host=db password=xxxxx dbname=x"},
		{"postgres://tm:s3cret@db:notaport/x", "postgres://tm:xxxxx@db:notaport/x"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactError(t *testing.T) {
	conn := "postgres://tm:p%40ss%20word@db/x"
	err := RedactError(errors.New("dial postgres://tm:p%40ss%20word@db/x with p@ss word failed"), conn)
	if got := err.Error(); strings.Contains(got, "p%40ss") || strings.Contains(got, "p@ss") {
		t.Errorf("RedactError() = %q, want no password in any spelling", got)
	}
}

// TestOpenErrorsHideThePassword opens stores with connection strings that
// fail in each way, and checks that no error shows the password.
func TestOpenErrorsHideThePassword(t *testing.T) {
	const secret = "Sup3rS3cretPa55"
	db, err := url.Parse(pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	wrongPassword := *db
	wrongPassword.User = url.UserPassword("nobody_"+secret[:4], secret)
	noDatabase := *db
	noDatabase.User = url.UserPassword(db.User.Username(), secret)
	noDatabase.Path = "/no_such_database"
	tests := []string{
		wrongPassword.String(),
		noDatabase.String(),
		"postgres://tm:" + secret + "@127.0.0.1:notaport/x",
		"postgres://tm:" + secret + "@127.0.0.1:1/x?sslmode=bogus",
		"host=127.0.0.1 password=" + secret,
	}
	for _, conn := range tests {
		s, err := Open(context.Background(), conn, Options{})
		if err == nil {
			s.Close()
			t.Errorf("Open(%s) error = nil, want one", Redact(conn))
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("Open(%s) error = %q, holds the password", Redact(conn), err)
		}
	}
}

// A password already replaced keeps what followed it in the message: the
// keyword form's pass over the message took the colon after it as part of
// the password.
func TestRedactErrorKeepsWhatFollows(t *testing.T) {
	for _, tt := range []struct{ conn, msg, want string }{
		{"postgres://tm@db/x?password=pw", "open postgres://tm@db/x?password=pw: begin migration: refused",
			"open postgres://tm@db/x?password=xxxxx: begin migration: refused"},
		{"host=db password=pw", "connect host=db password=pw: refused", "connect host=db password=xxxxx: refused"},
		{"host=db password=pw", "connect host=db password=other: refused", "connect host=db password=xxxxx refused"},
	} {
		if got := RedactError(errors.New(tt.msg), tt.conn).Error(); got != tt.want {
			t.Errorf("RedactError(%q, %q) = %q, want %q", tt.msg, tt.conn, got, tt.want)
		}
	}
}
