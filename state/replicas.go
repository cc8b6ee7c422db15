package state

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// The replicas: every replica writes its Replica, with the time it
// expires, into the hash <key_prefix>replicas every second (its
// heartbeat); one not heard of for ReplicaTTL is gone (and removed by the
// next replica that reads the list). One hash key, so it works the same
// on Redis Cluster.

// ReplicaTTL is how long a replica stays listed after its last heartbeat.
const ReplicaTTL = 10 * time.Second

// Replica is one gateway process serving with this Redis.
type Replica struct {
	ID         string    `json:"id"`
	ConfigHash string    `json:"config_hash"`
	Version    string    `json:"version,omitempty"`
	MCP        string    `json:"mcp,omitempty"`   // its MCP endpoint
	Admin      string    `json:"admin,omitempty"` // its admin listener
	Started    time.Time `json:"started"`
	Seen       time.Time `json:"seen"`
}

// ReplicaStatus is a Replica as the status page shows it.
type ReplicaStatus struct {
	Replica
	Self bool `json:"self,omitempty"`
	// ConfigDiffers: its config hash is not this replica's.
	ConfigDiffers bool `json:"config_differs,omitempty"`
}

func (s *Store) replicasKey() string { return s.key("replicas") }

// SetReplica makes s announce r (again, with a new config hash after a
// reload) with every heartbeat; fill, when set, completes it before each
// (with the listeners' addresses, known once they listen).
func (s *Store) SetReplica(r Replica, fill func(*Replica)) {
	s.replicaMu.Lock()
	s.replica = &r
	s.fill = fill
	s.replicaMu.Unlock()
}

// heartbeat writes this replica and reads the list; nothing while Redis
// is down (the list keeps what was last read).
func (s *Store) heartbeat(ctx context.Context) {
	s.replicaMu.Lock()
	var me Replica
	have := s.replica != nil
	if have {
		me = *s.replica
	}
	fill := s.fill
	s.replicaMu.Unlock()
	if have && fill != nil {
		fill(&me)
	}
	if !have {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	now := time.Now()
	me.Seen = now
	b, _ := json.Marshal(me)
	if err := s.client.HSet(ctx, s.replicasKey(), me.ID, b).Err(); err != nil {
		return
	}
	all, err := s.client.HGetAll(ctx, s.replicasKey()).Result()
	if err != nil {
		return
	}
	var list []Replica
	var gone []string
	for id, v := range all {
		var r Replica
		if json.Unmarshal([]byte(v), &r) != nil || now.Sub(r.Seen) > ReplicaTTL {
			gone = append(gone, id)
			continue
		}
		list = append(list, r)
	}
	if len(gone) > 0 {
		_ = s.client.HDel(ctx, s.replicasKey(), gone...).Err()
	}
	slices.SortFunc(list, func(a, b Replica) int { return a.Started.Compare(b.Started) })
	s.replicaMu.Lock()
	s.replicas = list
	s.replicaMu.Unlock()
}

// Status is the state store as the status page shows it.
type Status struct {
	Backend   string          `json:"backend"`
	URL       string          `json:"url"`
	Up        bool            `json:"up"`
	LastError string          `json:"last_error,omitempty"`
	Replicas  []ReplicaStatus `json:"replicas"`
	// ConfigsDiffer: some replica serves another config than this one.
	ConfigsDiffer bool `json:"configs_differ,omitempty"`
}

// Status is what s knows now (the replicas as last read); cheap.
func (s *Store) Status() Status {
	st := Status{Backend: "redis", URL: s.where, Up: s.Up(), Replicas: []ReplicaStatus{}}
	if e := s.lastErr.Load(); e != nil && !st.Up {
		st.LastError = *e
	}
	s.replicaMu.Lock()
	defer s.replicaMu.Unlock()
	for _, r := range s.replicas {
		rs := ReplicaStatus{Replica: r}
		if s.replica != nil {
			rs.Self = r.ID == s.replica.ID
			rs.ConfigDiffers = r.ConfigHash != s.replica.ConfigHash
			st.ConfigsDiffer = st.ConfigsDiffer || rs.ConfigDiffers
		}
		st.Replicas = append(st.Replicas, rs)
	}
	return st
}
