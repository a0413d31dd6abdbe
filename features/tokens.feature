@cap:tokens
Feature: Personal access tokens
  A personal access token stands for its user and carries no privileges of its own: every
  request is authorized on what the user may do at that moment, so granting or taking away
  a privilege changes what an existing token can do. DataHub's authorizer refreshes its
  view of the policies in the background, so at must level a change shows within a
  bounded window (CATALOGSPEC_PROPAGATION_TIMEOUT); showing it on the very next request is
  recommended, and the reference does.
  Someone granted GENERATE_PERSONAL_ACCESS_TOKENS (or MANAGE_ACCESS_TOKENS) creates tokens
  for themself, and only for themself. The raw token is shown once, in the answer that
  creates it, and never again. People list their own tokens; a token's owner may revoke
  it, and a revoked token stops working on the next request. Only managers read a
  token's metadata.

  Rule: A token can do what its user may do, and nothing more

    Background:
      Given Ann holds a personal access token

    @id:token-01 @must @smoke
    Scenario: A token can do what its user may do
      Given Ann is granted CREATE_TAGS
      When Ann creates a tag
      Then the tag exists with its name and description

    @id:token-02 @must @core @cap:policies
    Scenario: A token cannot do what its user may not do
      When Ann grants herself every platform privilege with a new policy
      Then Ann is rejected as unauthorized

    @id:token-03 @must @core @cap:policies
    Scenario: A privilege granted by a new policy reaches an existing token
      Given Ann cannot create a tag
      When the administrator grants Ann CREATE_TAGS
      Then Ann can create a tag

    @id:token-04 @should @core @cap:policies
    Scenario: A privilege granted by a new policy works with an existing token at once
      Given Ann cannot create a tag
      When the administrator grants Ann CREATE_TAGS
      Then Ann can create a tag at once

    @id:token-05 @must @core @cap:policies
    Scenario: Setting the granting policy INACTIVE takes the privilege away
      Given Ann is granted CREATE_TAGS
      And Ann can create a tag
      When the policy granting Ann CREATE_TAGS is set INACTIVE
      Then Ann can no longer create a tag

    @id:token-06 @should @core @cap:policies
    Scenario: Setting the granting policy INACTIVE takes the privilege away at once
      Given Ann is granted CREATE_TAGS
      And Ann can create a tag
      When the policy granting Ann CREATE_TAGS is set INACTIVE
      Then Ann can no longer create a tag at once

    @id:token-07 @must @core @cap:policies
    Scenario: Deleting the granting policy takes the privilege away
      Given Ann is granted CREATE_TAGS
      And Ann can create a tag
      When the policy granting Ann CREATE_TAGS is deleted
      Then Ann can no longer create a tag

    @id:token-08 @should @core @cap:policies
    Scenario: Deleting the granting policy takes the privilege away at once
      Given Ann is granted CREATE_TAGS
      And Ann can create a tag
      When the policy granting Ann CREATE_TAGS is deleted
      Then Ann can no longer create a tag at once

  Rule: Only people allowed to generate tokens create them, and only for themselves

    # Every user may generate tokens through a policy the service starts with. This
    # scenario switches such policies off while it runs, so it runs alone.
    @id:token-09 @must @core @exclusive
    Scenario: Someone not allowed to generate tokens cannot create one
      Given Ann holds a personal access token
      And no policy lets every user generate personal access tokens
      When Ann creates a personal access token for herself
      Then Ann is rejected as unauthorized
      And no token was created for Ann

    @id:token-10 @must @core @exclusive
    Scenario: Someone granted MANAGE_ACCESS_TOKENS creates a token for themself
      Given Ann holds a personal access token
      And no policy lets every user generate personal access tokens
      And Ann is granted MANAGE_ACCESS_TOKENS
      When Ann creates a personal access token for herself
      Then the new token acts as Ann

    @id:token-11 @must @smoke
    Scenario: Someone allowed to generate tokens creates one for themself
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
      When Ann creates a personal access token for herself
      Then the new token acts as Ann
      And the new token is described with Ann as its actor and Ann as its owner

    @id:token-12 @must @core
    Scenario: A new token is described as it was asked for, wherever it is shown
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
      When Ann creates a personal access token for herself
      Then the new token is described with its name, description, actor, owner and dates in the answer, in her token list and in its metadata

    @id:token-13 @must @core
    Scenario: A token is a JWT signed with HS256 that names its user
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
      When Ann creates a personal access token for herself
      Then the new token is a JWT signed with HS256 that names Ann

    @id:token-14 @must @core
    Scenario: Someone allowed to generate tokens cannot create one for someone else
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
      And Bob is a user
      When Ann creates a personal access token for Bob
      Then Ann is rejected as unauthorized
      And no token was created for Bob

    @id:token-15 @must @core
    Scenario: The raw token is shown only in the answer that creates it
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS
      When Ann creates a personal access token for herself
      Then the answer holds the raw token
      And the raw token appears in no token list and no token metadata

  Rule: People list and revoke their own tokens, and nobody else's

    Background:
      Given Ann holds a personal access token
      And Ann is granted GENERATE_PERSONAL_ACCESS_TOKENS

    @id:token-16 @must @core
    Scenario: Someone lists their own tokens, and only those
      Given Bob holds a personal access token
      And Bob has created a personal access token for himself
      And Ann has created a personal access token for herself
      When Ann lists her own tokens
      Then the list includes the new token
      And every token in the list is owned by Ann

    @id:token-17 @must @core
    Scenario: Listing tokens without saying whose is refused
      Given Ann has created a personal access token for herself
      When Ann lists tokens without saying whose
      Then Ann is rejected as unauthorized

    @id:token-18 @must @core
    Scenario: Listing someone else's tokens is refused
      Given Bob holds a personal access token
      And Bob has created a personal access token for himself
      When Ann lists the tokens Bob owns
      Then Ann is rejected as unauthorized

    @id:token-19 @must @core
    Scenario: Someone revokes their own token and it stops working
      Given Ann has created a personal access token for herself
      And the new token acts as Ann
      When Ann revokes the new token
      Then the new token is refused
      And Ann's own token list does not include the new token

    @id:token-20 @must @core
    Scenario: Someone cannot revoke a token someone else owns
      Given Bob holds a personal access token
      And Bob has created a personal access token for himself
      When Ann revokes the new token
      Then Ann is rejected as unauthorized
      And the new token acts as Bob

    # DataHub lets a token's owner revoke it whatever their privileges, but lists
    # a user's own tokens only to someone allowed to generate them.
    @id:token-21 @must @core @exclusive
    Scenario: Someone no longer allowed to generate tokens still revokes their own
      Given Ann has created a personal access token for herself
      And no policy lets every user generate personal access tokens
      And the policy granting Ann GENERATE_PERSONAL_ACCESS_TOKENS has been deleted
      When Ann revokes the new token
      Then the new token is refused

    @id:token-22 @must @core @exclusive
    Scenario: Someone no longer allowed to generate tokens cannot list their own
      Given Ann has created a personal access token for herself
      And no policy lets every user generate personal access tokens
      And the policy granting Ann GENERATE_PERSONAL_ACCESS_TOKENS has been deleted
      When Ann lists her own tokens
      Then Ann is rejected as unauthorized

    @id:token-23 @must @core
    Scenario: Someone who is not a manager cannot read a token's metadata, even their own
      Given Ann has created a personal access token for herself
      When Ann reads the metadata of the new token
      Then Ann is rejected as unauthorized
