-- The editor half of tests/tests/shared_vault.rs: headless Neovim 0.11 edits
-- a vault while an agent (the MCP Python SDK, tests/python/shared_agent.py)
-- writes to it, both through one Weft index daemon.
--   nvim --headless --clean -l shared.lua WEFT_BIN VAULT SIGNALS OUT_JSON
-- Steps are handed over through files in SIGNALS: `editor-N` when the
-- editor's step N is done, `agent-N` when the agent's is.

local bin, root, signals, out = arg[1], arg[2], arg[3], arg[4]
local results = { errors = {} }

local function fail(message)
  table.insert(results.errors, message)
end

local function finish()
  vim.fn.writefile({ vim.json.encode(results) }, out)
  vim.cmd('qa!')
end

local function signal(name, text)
  vim.fn.writefile({ text or '' }, signals .. '/' .. name)
end

local function await(name)
  local path = signals .. '/' .. name
  if not vim.wait(60000, function() return vim.uv.fs_stat(path) ~= nil end, 20) then
    fail('the agent never reached ' .. name)
    return nil
  end
  return vim.fn.readfile(path)[1]
end

local function now()
  local sec, usec = vim.uv.gettimeofday()
  return sec + usec / 1e6
end

vim.cmd('edit ' .. vim.fn.fnameescape(root .. '/a.md'))
local a = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start({ name = 'weft', cmd = { bin, 'lsp' }, root_dir = root })
if not client_id then
  fail('vim.lsp.start failed')
  return finish()
end

local function messages()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(a)) do
    table.insert(out, d.message)
  end
  return out
end

-- 1. The link to a note that does not exist is reported.
if not vim.wait(60000, function()
  return table.concat(messages(), '\n'):find('Ghost') ~= nil
end, 20) then
  fail('no diagnostic for [[Ghost]]: ' .. vim.inspect(messages()))
  return finish()
end
signal('editor-1')

-- 2. The agent creates Ghost: the diagnostic goes, with no file event
-- needed (Neovim is not told of the new file).
local wrote_at = tonumber(await('agent-2'))
if not wrote_at then return finish() end
if vim.wait(60000, function() return #messages() == 0 end, 5) then
  results.write_to_diagnostics_ms = math.floor((now() - wrote_at) * 1000 + 0.5)
else
  fail('the diagnostic stayed after the agent wrote Ghost: ' .. vim.inspect(messages()))
end

-- 3. The user types without saving.
vim.api.nvim_buf_set_lines(a, -1, -1, false, { 'Typed in the editor, not saved.' })
-- Neovim sends the change after its debounce, but first thing before any
-- request: once the server has answered one, it has the change (it applies
-- a change as it reads it, before it reads what follows).
local client = vim.lsp.get_client_by_id(client_id)
local status = client and client:request_sync('weft/status', nil, 60000, a)
if not status or status.err then
  fail('weft/status after typing: ' .. vim.inspect(status))
  return finish()
end
signal('editor-3')

-- 4. The agent was refused; the user saves.
if not await('agent-4') then return finish() end
vim.api.nvim_set_current_buf(a)
vim.cmd('write')
signal('editor-5')

-- 6. The agent's write went through after the save.
if not await('agent-6') then return finish() end
finish()
