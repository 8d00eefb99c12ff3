-- agcore Redis store: every write, and the sweep of expired items, runs here
-- so that an item and its index entries change together.
-- ARGV[1] key prefix, ARGV[2] mode (save | delete | sweep | reindex), ARGV[3]
-- now in ms, then per mode: save: items JSON, check interval, max items (-1:
-- none); delete: id; reindex: items JSON (id, content, len, tf). Untrusted text arrives only as ARGV values.
local P = ARGV[1]
local mode = ARGV[2]
local now = tonumber(ARGV[3])

local function remove(id)
  local shadow = redis.call('GET', P .. ':doc:' .. id)
  if not shadow then return 0 end
  local d = cjson.decode(shadow)
  for _, t in ipairs(d.terms) do redis.call('HDEL', P .. ':t:' .. t, id) end
  redis.call('ZREM', P .. ':created', d.ckey)
  redis.call('ZREM', P .. ':byid', id)
  redis.call('ZREM', P .. ':expiry', id)
  redis.call('DEL', P .. ':doc:' .. id, P .. ':item:' .. id)
  redis.call('HINCRBY', P .. ':stats', 'docs', -1)
  redis.call('HINCRBY', P .. ':stats', 'len', -d.len)
  return 1
end

-- Items whose native TTL has passed (their hash is gone) leave the index.
local swept = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', P .. ':expiry', '-inf', now)) do
  swept = swept + remove(id)
end

if mode == 'save' then
  local items = cjson.decode(ARGV[4])
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
      local terms = {}
      for t, tf in pairs(it.tf) do
        redis.call('HSET', P .. ':t:' .. t, it.id, tf .. ':' .. it.len)
        terms[#terms + 1] = t
      end
      redis.call('SET', P .. ':doc:' .. it.id, cjson.encode({ ckey = it.ckey, len = it.len, terms = terms }))
      redis.call('HINCRBY', P .. ':stats', 'docs', 1)
      redis.call('HINCRBY', P .. ':stats', 'len', it.len)
    end
  end
  local interval = tonumber(ARGV[5])
  local max = tonumber(ARGV[6])
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
  return swept
elseif mode == 'delete' then
  return remove(ARGV[4])
elseif mode == 'reindex' then
  -- New postings of items whose stored content is still the text tokenised.
  local done = 0
  for _, it in ipairs(cjson.decode(ARGV[4])) do
    local shadow = redis.call('GET', P .. ':doc:' .. it.id)
    local content = redis.call('HGET', P .. ':item:' .. it.id, 'content')
    if shadow and content == it.content then
      local d = cjson.decode(shadow)
      for _, t in ipairs(d.terms) do redis.call('HDEL', P .. ':t:' .. t, it.id) end
      local terms = {}
      for t, tf in pairs(it.tf) do
        redis.call('HSET', P .. ':t:' .. t, it.id, tf .. ':' .. it.len)
        terms[#terms + 1] = t
      end
      redis.call('SET', P .. ':doc:' .. it.id, cjson.encode({ ckey = d.ckey, len = it.len, terms = terms }))
      redis.call('HINCRBY', P .. ':stats', 'len', it.len - d.len)
      done = done + 1
    end
  end
  return done
end
return swept
