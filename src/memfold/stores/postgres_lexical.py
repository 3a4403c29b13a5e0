"""BM25 computed by PostgreSQL, with the ranking of the in-process index.

A replica keeps no lexical state: every search reads the committed rows, so what one
replica writes or removes is found (or no longer found) by the next search on any other.

The index is two tables written in the transaction that writes the archive rows:

* ``lexical_postings (user_id, term, item_id, tf)``: the tokens of each row's lexical key
  as memfold's own analyzer makes them (:mod:`memfold.bm25`; PostgreSQL's text search
  stems and drops stopwords differently, which cost R@10 0.622 against 0.626 on LoCoMo);
  B-tree primary key on (user_id, term, item_id): a query term is one index range per user.
* ``lexical_docs (user_id, item_id, ...)``: each row's length, its place (the archive's
  ``seq``) and its window: the message rows just before and after it when they are no more
  than the window gap apart (``prev_id``/``next_id``), and the window's length. A new row
  links itself to the user's last message row; a delete or a replacement relinks the
  user's rows from scratch, as a rebuild of the in-process index would.

A search is then one statement: the postings of the query's terms, spread to the
neighbours for the window ranking, scored with Okapi BM25 (Lucene idf, k1 1.2, b 0.75),
N and the mean lengths over the user's rows. Same rows, same formula, same tie order
(older rows first) as ``memfold.retrieval.lexical`` built from the archive.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from memfold import bm25
from memfold.bm25 import Analyzer, LexicalHits, RowInfo
from memfold.errors import StoreCorruptError
from memfold.models import ArchiveItem

if TYPE_CHECKING:
    from memfold.stores.postgres import PostgresDatabase

SCHEMA = """
CREATE TABLE lexical_docs (
    user_id TEXT COLLATE "C" NOT NULL, item_id TEXT COLLATE "C" NOT NULL, seq BIGINT NOT NULL,
    windowed BOOLEAN NOT NULL, occurred_at TIMESTAMPTZ, subject TEXT, length INTEGER NOT NULL,
    window_length INTEGER NOT NULL, prev_id TEXT COLLATE "C", next_id TEXT COLLATE "C",
    PRIMARY KEY (user_id, item_id));
CREATE INDEX lexical_docs_window ON lexical_docs (user_id, seq) WHERE windowed;
CREATE TABLE lexical_postings (
    user_id TEXT COLLATE "C" NOT NULL, term TEXT COLLATE "C" NOT NULL,
    item_id TEXT COLLATE "C" NOT NULL, tf INTEGER NOT NULL, PRIMARY KEY (user_id, term, item_id));
CREATE INDEX lexical_postings_item ON lexical_postings (user_id, item_id);
"""
_DOC_TYPES = [("user_id", "TEXT"), ("item_id", "TEXT"), ("seq", "BIGINT"), ("windowed", "BOOLEAN"),
              ("occurred_at", "TIMESTAMPTZ"), ("subject", "TEXT"), ("length", "INTEGER"),
              ("window_length", "INTEGER")]
_POSTING_TYPES = [("user_id", "TEXT"), ("term", "TEXT"), ("item_id", "TEXT"), ("tf", "INTEGER")]
_BACKFILL_LOCK = ("lexical", "backfill")
_BACKFILL_BATCH = 2000

# The window rule (memfold.bm25.close_in_time) over the user's message rows from the
# second-to-last one before %(from)s on: that one anchors the links of the last one, the
# first whose links (its next) may change. Rows from %(from)s are the ones just added;
# %(from)s = 0 relinks every row of the user.
_RELINK = """
WITH before AS (
    SELECT seq FROM lexical_docs WHERE user_id = %(user)s AND windowed AND seq < %(from)s
    ORDER BY seq DESC LIMIT 2),
bounds AS (SELECT coalesce(min(seq), %(from)s) AS lo, coalesce(max(seq), %(from)s) AS mid
           FROM before),
around AS (
    SELECT d.item_id, d.seq, d.length, d.occurred_at AS at,
           lag(d.item_id) OVER w AS prev_id, lag(d.occurred_at) OVER w AS prev_at,
           lag(d.length) OVER w AS prev_length, lead(d.item_id) OVER w AS next_id,
           lead(d.occurred_at) OVER w AS next_at, lead(d.length) OVER w AS next_length
    FROM lexical_docs d, bounds b WHERE d.user_id = %(user)s AND d.windowed AND d.seq >= b.lo
    WINDOW w AS (ORDER BY d.seq)),
linked AS (
    SELECT item_id, seq, length,
           CASE WHEN prev_at IS NULL OR at IS NULL OR at - prev_at BETWEEN -%(gap)s AND %(gap)s
                THEN prev_id END AS prev_id, prev_length,
           CASE WHEN next_at IS NULL OR at IS NULL OR next_at - at BETWEEN -%(gap)s AND %(gap)s
                THEN next_id END AS next_id, next_length
    FROM around)
UPDATE lexical_docs d SET prev_id = l.prev_id, next_id = l.next_id,
       window_length = l.length + CASE WHEN l.prev_id IS NULL THEN 0 ELSE l.prev_length END
                                + CASE WHEN l.next_id IS NULL THEN 0 ELSE l.next_length END
FROM linked l, bounds b
WHERE d.user_id = %(user)s AND d.item_id = l.item_id AND l.seq >= b.mid
"""

# Both rankings of one query. ``own``: each posting as it is. ``window``: each posting
# also counts for the row's neighbours (a window's tf is the sum of its rows' tfs), then
# document frequencies are counted per ranking over the rows each term reaches. Every row
# scored is reached from a posting by primary-key lookups, and the CTEs are materialised:
# inlined, the corpus statistics were recomputed for every candidate (190 ms a search on a
# 419-row conversation, against a few ms).
_SEARCH = """
WITH corpus AS MATERIALIZED (
    SELECT count(*)::float8 AS n, coalesce(nullif(avg(length), 0), 1)::float8 AS own_avg,
           coalesce(nullif(avg(window_length), 0), 1)::float8 AS window_avg
    FROM lexical_docs WHERE user_id = %(user)s),
hits AS MATERIALIZED (
    SELECT p.term, p.tf::float8 AS tf, d.item_id, d.seq, d.length, d.window_length,
           n.item_id AS next_id, n.seq AS next_seq, n.window_length AS next_length,
           v.item_id AS prev_id, v.seq AS prev_seq, v.window_length AS prev_length
    FROM lexical_postings p JOIN lexical_docs d USING (user_id, item_id)
    LEFT JOIN lexical_docs n ON n.user_id = d.user_id AND n.item_id = d.next_id
    LEFT JOIN lexical_docs v ON v.user_id = d.user_id AND v.item_id = d.prev_id
    WHERE p.user_id = %(user)s AND p.term = ANY(%(terms)s)),
matched AS (
    SELECT 'own' AS ranking, item_id, seq, length AS dl, term, tf FROM hits
    UNION ALL
    SELECT 'window', item_id, seq, dl, term, sum(tf) FROM (
        SELECT item_id, seq, window_length AS dl, term, tf FROM hits
        UNION ALL SELECT next_id, next_seq, next_length, term, tf FROM hits
                  WHERE next_id IS NOT NULL
        UNION ALL SELECT prev_id, prev_seq, prev_length, term, tf FROM hits
                  WHERE prev_id IS NOT NULL) spread
    GROUP BY item_id, seq, dl, term),
counted AS (SELECT *, count(*) OVER (PARTITION BY ranking, term)::float8 AS df FROM matched),
scored AS (
    SELECT m.ranking, m.item_id, m.seq, sum(
        ln(1 + (c.n - m.df + 0.5) / (m.df + 0.5)) * m.tf * (%(k1)s + 1)
        / (m.tf + %(k1)s * (1 - %(b)s + %(b)s * m.dl
           / CASE m.ranking WHEN 'own' THEN c.own_avg ELSE c.window_avg END))) AS score
    FROM counted m CROSS JOIN corpus c GROUP BY m.ranking, m.item_id, m.seq)
SELECT ranking, item_id, score FROM (
    SELECT ranking, item_id, score,
           row_number() OVER (PARTITION BY ranking ORDER BY score DESC, seq) AS place
    FROM scored) ranked
WHERE place <= %(k)s ORDER BY ranking, place
"""


class PostgresLexicon:
    """The lexical tables of one database: written by the archive store, searched by recall
    (the ``LexicalSearch`` protocol of memfold.bm25)."""

    def __init__(self, db: PostgresDatabase, *, window_gap: timedelta = bm25.DEFAULT_WINDOW_GAP,
                 analyzer: Analyzer | None = None) -> None:
        self.db = db
        self.window_gap = window_gap
        self.analyzer = analyzer or Analyzer()

    # -- writes (inside the archive store's transaction) ------------------------------------

    def index(self, items: Sequence[ArchiveItem], seqs: dict[str, int], replaced: set[str]) -> None:
        """Index rows just written to the archive (``seqs``: their new place); ``replaced``:
        ids that were stored before and were overwritten."""
        by_user: dict[str, list[ArchiveItem]] = {}
        for item in items:
            by_user.setdefault(item.user_id, []).append(item)
        for user_id, rows in by_user.items():
            again = [i.item_id for i in rows if i.item_id in replaced]
            if again:
                self._drop(user_id, again)
            self._insert(rows, seqs)
            self.relink(user_id, 0 if again else min(seqs[i.item_id] for i in rows))

    def _insert(self, rows: Sequence[ArchiveItem], seqs: dict[str, int]) -> None:
        docs, postings = [], []
        for item in rows:
            skipped = item.kind in bm25.SKIP_KINDS  # described and counted, never matched
            tokens = [] if skipped else self.analyzer.tokens(bm25.lexical_key(item))
            docs.append([item.user_id, item.item_id, seqs[item.item_id],
                         item.kind in bm25.WINDOW_KINDS, item.occurred_at,
                         None if skipped else item.subject, len(tokens), len(tokens)])
            postings += [[item.user_id, term, item.item_id, tf]
                         for term, tf in Counter(tokens).items()]
        self.db.bulk_insert("lexical_docs", _DOC_TYPES, docs)
        self.db.bulk_insert("lexical_postings", _POSTING_TYPES, postings)

    def relink(self, user_id: str, start: int = 0) -> None:
        """Recompute the windows of the user's rows from place ``start`` on (0: all of them)."""
        self.db.execute(_RELINK, {"user": user_id, "from": start, "gap": self.window_gap})

    def remove(self, user_id: str, item_ids: Sequence[str]) -> None:
        """Rows deleted from the archive: gone from the index, their neighbours relinked."""
        if item_ids:
            self._drop(user_id, item_ids)
            self.relink(user_id)

    def remove_user(self, user_id: str) -> None:
        for table in ("lexical_postings", "lexical_docs"):
            self.db.execute(f"DELETE FROM {table} WHERE user_id = %s", [user_id])

    def _drop(self, user_id: str, item_ids: Sequence[str]) -> None:
        for table in ("lexical_postings", "lexical_docs"):
            self.db.execute(f"DELETE FROM {table} WHERE user_id = %s AND item_id = ANY(%s)",
                            [user_id, list(item_ids)])

    # -- reads ------------------------------------------------------------------------------

    def search(self, user_id: str, query: str, k: int) -> LexicalHits:
        terms = list(dict.fromkeys(self.analyzer.tokens(query)))
        subjects = self.subjects(user_id)
        if not terms or k <= 0:
            return LexicalHits([], [], subjects)
        # planned for its parameters each time: a generic plan of a statement like this one
        # ran 10x slower than a custom one (measured on the earlier tsvector search)
        rows = self.db.fetchall(_SEARCH, {"user": user_id, "terms": terms, "k": k, "k1": bm25.K1,
                                          "b": bm25.B}, prepare=False)
        ranked: dict[str, list[tuple[str, float]]] = {"own": [], "window": []}
        for ranking, item_id, score in rows:
            ranked[ranking].append((item_id, float(score)))
        return LexicalHits(ranked["own"], ranked["window"], subjects)

    def subjects(self, user_id: str) -> frozenset[str]:
        """Who the user's indexed rows are about, lower-cased by Python (PostgreSQL's lower()
        follows the database's collation, which may leave non-ASCII letters as they are)."""
        rows = self.db.fetchall("SELECT DISTINCT subject FROM lexical_docs WHERE user_id = %s "
                                "AND subject IS NOT NULL", [user_id])
        return frozenset(r[0].lower() for r in rows)

    def describe(self, user_id: str, item_ids: Iterable[str]) -> dict[str, RowInfo]:
        wanted = list(dict.fromkeys(item_ids))
        if not wanted:
            return {}
        rows = self.db.fetchall(
            "SELECT item_id, kind, sources, subject, occurred_at, flags FROM archive "
            "WHERE user_id = %s AND item_id = ANY(%s)", [user_id, wanted])
        return {r[0]: _row_info(r) for r in rows}

    def extend(self, items: Iterable[ArchiveItem]) -> None:
        """Nothing to do: the rows were indexed in the transaction that stored them."""

    def invalidate(self, user_id: str | None = None) -> None:
        """Nothing to do: no replica keeps lexical state."""

    # -- keeping the tables in step with the archive ---------------------------------------

    def catch_up(self) -> int:
        """Index archive rows the tables lack (a database from before this index, or one
        written under another analyzer or window gap); returns the rows indexed. One process
        at a time: the others wait for it, then find nothing to do."""
        with self.db.transaction():
            self.db.advisory_lock(*_BACKFILL_LOCK)
            if self.db.get_meta("lexical_analyzer") != bm25.analyzer_version():
                for table in ("lexical_postings", "lexical_docs"):
                    self.db.execute(f"DELETE FROM {table}")
            relink_all = self.db.get_meta("lexical_window_gap") != str(self.window_gap)
            indexed, users = self._backfill()
            for user_id in sorted(self._all_users() if relink_all else users):
                self.relink(user_id)
            self.db.set_meta("lexical_analyzer", bm25.analyzer_version())
            self.db.set_meta("lexical_window_gap", str(self.window_gap))
            return indexed

    def _backfill(self) -> tuple[int, set[str]]:
        from memfold.stores.postgres import _item  # the archive store's row reader

        indexed, users = 0, set()
        while True:
            rows = self.db.fetchall(
                "SELECT a.seq, a.item_id, a.user_id, a.kind, a.text, a.key_text, a.sources, "
                "a.subject, a.occurred_at, a.flags FROM archive a WHERE NOT EXISTS (SELECT 1 "
                "FROM lexical_docs d WHERE d.user_id = a.user_id AND d.item_id = a.item_id) "
                "ORDER BY a.seq LIMIT %s", [_BACKFILL_BATCH])
            if not rows:
                return indexed, users
            items = [_item(r[1:]) for r in rows]
            self._insert(items, {r[1]: r[0] for r in rows})
            indexed += len(items)
            users |= {i.user_id for i in items}

    def _all_users(self) -> set[str]:
        return {r[0] for r in self.db.fetchall("SELECT DISTINCT user_id FROM lexical_docs")}

    def check(self) -> None:
        """A read-only process cannot build the index: refuse tables built for other rules."""
        if (self.db.get_meta("lexical_analyzer"), self.db.get_meta("lexical_window_gap")) != (
                bm25.analyzer_version(), str(self.window_gap)):
            raise StoreCorruptError(
                f"{self.db.name}: the lexical index was built with another analyzer or window gap",
                hint="open it once read-write (with the same recall settings) to rebuild it")


def _row_info(row: tuple[Any, ...]) -> RowInfo:
    from memfold.stores._common import as_utc

    item_id, kind, sources, subject, occurred_at, flags = row
    return RowInfo(item_id, kind, tuple(sources), subject,
                   None if occurred_at is None else as_utc(occurred_at), tuple(flags))
