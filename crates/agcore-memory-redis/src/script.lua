-- agcore Redis store: every write, and the sweep of expired items, runs here
-- so that an item, its index entries and its neighbours' context fields
-- change together.
-- ARGV[1] key prefix, ARGV[2] mode (save | delete | sweep | rebuild |
-- refresh), ARGV[3] now in ms, ARGV[4] the context window (0: no context
-- field), then per mode: save: items JSON, check interval, max items (-1:
-- none); delete: id; rebuild: items JSON (id, content, len, tf, grp);
-- refresh: ids JSON. Untrusted text arrives only as ARGV values.
--
-- An item's index entry `P:doc:{id}` is JSON: ckey (its `created` member),
-- len, tf (term -> own frequency), and for an item in a sequence grp (the
-- sequence), ctx (term -> frequency in its neighbours' text) and clen (their
-- summed lengths). Entries written before the context field hold `terms`
-- (a list) instead of tf. Sequences are sorted sets `P:g:{grp}` of ckeys.
-- A posting is `tf:len`, or `tf:len:ctf:clen` when the term is in the
-- item's context field.
local P = ARGV[1]
local mode = ARGV[2]
local now = tonumber(ARGV[3])
local W = tonumber(ARGV[4])
local STATS = P .. ':stats'

local function entry(id)
  local s = redis.call('GET', P .. ':doc:' .. id)
  if s then return cjson.decode(s) end
  return nil
end

local function store_entry(id, d)
  redis.call('SET', P .. ':doc:' .. id, cjson.encode(d))
end

-- Every term the entry has postings for.
local function posted_terms(d)
  local out = {}
  if d.terms then for _, t in ipairs(d.terms) do out[t] = true end end
  if d.tf then for t in pairs(d.tf) do out[t] = true end end
  if d.ctx then for t in pairs(d.ctx) do out[t] = true end end
  return out
end

local function drop_postings(id, d)
  for t in pairs(posted_terms(d)) do redis.call('HDEL', P .. ':t:' .. t, id) end
end

local function put_postings(id, d)
  local ctx = d.ctx or {}
  local tail = ':' .. (d.clen or 0)
  for t, n in pairs(d.tf) do
    local c = ctx[t]
    if c then
      redis.call('HSET', P .. ':t:' .. t, id, n .. ':' .. d.len .. ':' .. c .. tail)
    else
      redis.call('HSET', P .. ':t:' .. t, id, n .. ':' .. d.len)
    end
  end
  for t, c in pairs(ctx) do
    if not d.tf[t] then
      redis.call('HSET', P .. ':t:' .. t, id, '0:' .. d.len .. ':' .. c .. tail)
    end
  end
end

-- Ids of the members of sequence `grp` within the window on each side of
-- `ckey` (`ckey` itself excluded).
local function neighbours(grp, ckey)
  local out = {}
  if W <= 0 then return out end
  local key = P .. ':g:' .. grp
  for _, c in ipairs(redis.call('ZREVRANGEBYLEX', key, '(' .. ckey, '-', 'LIMIT', 0, W)) do
    out[#out + 1] = string.sub(c, 31)
  end
  for _, c in ipairs(redis.call('ZRANGEBYLEX', key, '(' .. ckey, '+', 'LIMIT', 0, W)) do
    out[#out + 1] = string.sub(c, 31)
  end
  return out
end

-- The context field at `ckey` in `grp`: the neighbours' own frequencies
-- summed, and their lengths summed.
local function context_of(grp, ckey)
  local ctx, clen = {}, 0
  for _, nid in ipairs(neighbours(grp, ckey)) do
    local nd = entry(nid)
    if nd and nd.tf then
      clen = clen + nd.len
      for t, n in pairs(nd.tf) do ctx[t] = (ctx[t] or 0) + n end
    end
  end
  return ctx, clen
end

local function same_counts(a, b)
  for t, n in pairs(a) do if b[t] ~= n then return false end end
  for t in pairs(b) do if a[t] == nil then return false end end
  return true
end

-- Derives item `id`'s context field again from its current neighbours.
local function refresh(id)
  local d = entry(id)
  if not d or not d.grp or not d.tf then return end
  local ctx, clen = context_of(d.grp, d.ckey)
  if clen == (d.clen or 0) and same_counts(ctx, d.ctx or {}) then return end
  drop_postings(id, d)
  redis.call('HINCRBY', STATS, 'clen', clen - (d.clen or 0))
  d.ctx, d.clen = ctx, clen
  put_postings(id, d)
  store_entry(id, d)
end

-- Items whose context field may have changed during this call, derived
-- once each by `settle` at its end (a batch of turns appended to one
-- session touches each neighbour once, not once per turn); `fresh` ones
-- were indexed by `join` without postings.
local dirty, dirty_order, fresh = {}, {}, {}

local function mark(id)
  if not dirty[id] then
    dirty[id] = true
    dirty_order[#dirty_order + 1] = id
  end
end

local function refresh_around(grp, ckey)
  for _, nid in ipairs(neighbours(grp, ckey)) do mark(nid) end
end

local function settle()
  for _, id in ipairs(dirty_order) do
    if fresh[id] then
      local d = entry(id)
      if d then
        d.ctx, d.clen = context_of(d.grp, d.ckey)
        redis.call('HINCRBY', STATS, 'clen', d.clen)
        put_postings(id, d)
        store_entry(id, d)
      end
    else
      refresh(id)
    end
  end
end

-- Takes `d` (item `id`'s entry) out of its sequence, if any.
local function leave(id, d)
  if not d.grp then return end
  redis.call('ZREM', P .. ':g:' .. d.grp, d.ckey)
  redis.call('HINCRBY', STATS, 'grouped', -1)
  redis.call('HINCRBY', STATS, 'clen', 0 - (d.clen or 0))
  refresh_around(d.grp, d.ckey)
end

-- Puts the new entry `d` of item `id` into sequence `grp` (when the store
-- has a context field; its postings then wait for `settle`) or indexes it.
local function join_and_index(id, d, grp)
  if grp and W > 0 then
    d.grp, d.clen = grp, 0
    redis.call('ZADD', P .. ':g:' .. grp, 0, d.ckey)
    redis.call('HINCRBY', STATS, 'grouped', 1)
    store_entry(id, d)
    fresh[id] = true
    mark(id)
    refresh_around(grp, d.ckey)
  else
    put_postings(id, d)
    store_entry(id, d)
  end
end

local function remove(id)
  local d = entry(id)
  if not d then return 0 end
  drop_postings(id, d)
  redis.call('ZREM', P .. ':created', d.ckey)
  redis.call('ZREM', P .. ':byid', id)
  redis.call('ZREM', P .. ':expiry', id)
  redis.call('DEL', P .. ':doc:' .. id, P .. ':item:' .. id)
  fresh[id] = nil
  redis.call('HINCRBY', STATS, 'docs', -1)
  redis.call('HINCRBY', STATS, 'len', 0 - d.len)
  leave(id, d)
  return 1
end

-- Items whose native TTL has passed (their hash is gone) leave the index.
local swept = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', P .. ':expiry', '-inf', now)) do
  swept = swept + remove(id)
end

if mode == 'save' then
  local items = cjson.decode(ARGV[5])
  for _, it in ipairs(items) do
    remove(it.id)
    if it.expire == 0 or it.expire > now then
      local key = P .. ':item:' .. it.id
      redis.call('HSET', key, 'content', it.content, 'metadata', it.metadata, 's', it.s, 'ns', it.ns)
      if it.expire > 0 then
        redis.call('PEXPIREAT', key, it.expire)
        redis.call('ZADD', P .. ':expiry', it.expire, it.id)
      end
      redis.call('ZADD', P .. ':created', 0, it.ckey)
      redis.call('ZADD', P .. ':byid', 0, it.id)
      redis.call('HINCRBY', STATS, 'docs', 1)
      redis.call('HINCRBY', STATS, 'len', it.len)
      join_and_index(it.id, { ckey = it.ckey, len = it.len, tf = it.tf }, it.grp)
    end
  end
  local interval = tonumber(ARGV[6])
  local max = tonumber(ARGV[7])
  if max >= 0 then
    local writes = redis.call('INCRBY', P .. ':writes', #items)
    if writes >= interval then
      redis.call('SET', P .. ':writes', 0)
      local n = redis.call('ZCARD', P .. ':created')
      if n > max then
        -- Lexicographic order of `created` members is (time, id) order.
        for _, ckey in ipairs(redis.call('ZRANGE', P .. ':created', 0, n - max - 1)) do
          remove(string.sub(ckey, 31))
        end
      end
    end
  end
  settle()
  return swept
elseif mode == 'delete' then
  local removed = remove(ARGV[5])
  settle()
  return removed
elseif mode == 'rebuild' then
  -- New entries and postings (own field, sequence) of items whose stored
  -- content is still the text tokenised; context fields are left empty for
  -- `refresh` to derive once every item of the batch run is in place.
  local done = 0
  for _, it in ipairs(cjson.decode(ARGV[5])) do
    local d = entry(it.id)
    local content = redis.call('HGET', P .. ':item:' .. it.id, 'content')
    if d and content == it.content then
      drop_postings(it.id, d)
      if d.grp then
        redis.call('ZREM', P .. ':g:' .. d.grp, d.ckey)
        redis.call('HINCRBY', STATS, 'grouped', -1)
        redis.call('HINCRBY', STATS, 'clen', 0 - (d.clen or 0))
      end
      redis.call('HINCRBY', STATS, 'len', it.len - d.len)
      local new = { ckey = d.ckey, len = it.len, tf = it.tf }
      if it.grp and W > 0 then
        new.grp = it.grp
        redis.call('ZADD', P .. ':g:' .. it.grp, 0, d.ckey)
        redis.call('HINCRBY', STATS, 'grouped', 1)
      end
      put_postings(it.id, new)
      store_entry(it.id, new)
      done = done + 1
    end
  end
  settle()
  return done
elseif mode == 'refresh' then
  for _, id in ipairs(cjson.decode(ARGV[5])) do mark(id) end
end
settle()
return swept
